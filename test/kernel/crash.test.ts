// Supervision: an extension killed with SIGKILL fails its in-flight work at once and comes back with
// its data; one that dies every time it starts spends its crash budget and is marked failed, while
// the rest of the server carries on.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { loadFixture, pluginInfo, waitForLog } from '../fixtures/extensions/helpers.js';
import { hostPid } from '../helpers/sandbox-pids.js';
import { waitFor } from '../helpers/wait.js';

describe('extension crashes', () => {
  let server: TestServer;
  let workDir: string;
  before(async () => {
    server = await startTestServer({ env: { ROOST_CRASH_BUDGET: '2' } });
    workDir = await mkdtemp(`${tmpdir()}/roost-crash-`);
    assert.equal((await loadFixture(server, 'fx-probe')).status, 201);
  });
  after(() => server.cleanup());

  it('restarts the projects extension after kill -9, with a new pid and its data intact', async () => {
    const created = await server.api('POST', '/api/projects', { body: { name: 'survivor', workingDir: workDir } });
    assert.equal(created.status, 201);
    const before = await pluginInfo(server, 'projects');
    assert.equal(before.state, 'running');
    process.kill(before.pid, 'SIGKILL');

    const after = await waitFor('projects to come back', async () => {
      const info = await pluginInfo(server, 'projects');
      return info.state === 'running' && info.pid !== before.pid ? info : undefined;
    });
    assert.equal(after.restarts, before.restarts + 1);
    assert.match(after.lastError, /SIGKILL/);
    const got = await server.api('GET', `/api/projects/${created.body.id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.name, 'survivor');
    await waitForLog(server, /extension projects exited unexpectedly \(SIGKILL\)/);
  });

  it('fails a request in flight with 503 EXTENSION_UNAVAILABLE as soon as its extension dies', async () => {
    const { pid } = await pluginInfo(server, 'fx-probe');
    // fx-probe's manifest timeout is 2 s and this request would take 20 s: only the crash can end it early.
    const inFlight = server.api('GET', '/api/fx-probe/sleep?ms=20000');
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(pid, 'SIGKILL');
    const res = await inFlight;
    assert.equal(res.status, 503);
    assert.equal(res.body.code, 'EXTENSION_UNAVAILABLE');
    assert.match(res.body.error, /fx-probe stopped while serving this request/);

    const back = await waitFor('fx-probe to come back', async () => {
      const info = await pluginInfo(server, 'fx-probe');
      return info.state === 'running' && info.pid !== pid ? info : undefined;
    });
    const fresh = await server.api('GET', '/api/fx-probe/sleep?ms=1');
    assert.equal(fresh.status, 200);
    assert.ok(hostPid(back.pid, fresh.body.pid), 'the restarted process answers');
  });

  it('marks an extension that dies on every start as failed, answers its routes with 503 and stays healthy', async () => {
    const loaded = await loadFixture(server, 'fx-crashy');
    assert.equal(loaded.status, 503);
    assert.equal(loaded.body.code, 'EXTENSION_UNAVAILABLE');
    assert.match(loaded.body.error, /fx-crashy exited during start-up \(code 3\): fx-crashy: cannot start, leaving$/);

    // ROOST_CRASH_BUDGET=2: the first start and two restarts fail, then the host gives up.
    const failed = await waitFor('fx-crashy to be failed', async () => {
      const info = await pluginInfo(server, 'fx-crashy');
      return info.state === 'failed' ? info : undefined;
    });
    assert.equal(failed.restarts, 2);
    assert.equal(failed.pid, null);
    assert.match(failed.lastError, /code 3/);
    await waitForLog(server, /fx-crashy: cannot start, leaving/);

    const route = await server.api('GET', '/api/fx-crashy/anything');
    assert.equal(route.status, 503);
    assert.equal(route.body.code, 'EXTENSION_UNAVAILABLE');
    assert.match(route.body.error, /fx-crashy failed/);

    // Not restarted any more: the same answer a moment later, and no new attempt in the log.
    const attempts = server.log().match(/fx-crashy: cannot start/g)!.length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(server.log().match(/fx-crashy: cannot start/g)!.length, attempts);

    const health = await server.api('GET', '/api/health');
    assert.equal(health.status, 200);
    assert.equal(health.body.extensions['fx-crashy'], 'failed');
    assert.equal(health.body.extensions.projects, 'running');
    const list = await server.api('GET', '/api/projects');
    assert.equal(list.status, 200);
    assert.equal(list.body.projects[0].name, 'survivor');
  });

  it('gives a failed extension a fresh budget when it is unloaded and loaded again', async () => {
    assert.equal((await server.api('POST', '/api/plugins/fx-crashy/unload')).status, 200);
    const again = await server.api('POST', '/api/plugins/load', { body: { name: 'fx-crashy' } });
    assert.equal(again.status, 503);
    const info = await pluginInfo(server, 'fx-crashy');
    assert.notEqual(info.state, 'failed');
    assert.equal(info.restarts, 0);
    await server.api('POST', '/api/plugins/fx-crashy/unload');
  });
});
