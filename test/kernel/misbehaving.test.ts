// Extensions that break the protocol — garbage on stdout, floods, hangs, silence, early exits — never
// harm the kernel: each gets a clear error or a logged warning, and the server keeps serving.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { loadFixture, pluginInfo, waitForLog } from '../fixtures/extensions/helpers.js';
import { waitFor } from '../helpers/wait.js';

describe('misbehaving extensions', () => {
  let server: TestServer;
  let workDir: string;
  before(async () => {
    server = await startTestServer();
    workDir = await mkdtemp(`${tmpdir()}/roost-misbehave-`);
    assert.equal((await loadFixture(server, 'fx-probe')).status, 201);
  });
  after(() => server.cleanup());

  /** The kernel answers and an unrelated extension still does full CRUD. */
  async function assertServerFine(): Promise<void> {
    const health = await server.api('GET', '/api/health');
    assert.equal(health.status, 200);
    // Lazy projects may not have started yet; the CRUD below starts it if so.
    assert.ok(['idle', 'running'].includes(health.body.extensions.projects), health.body.extensions.projects);
    const created = await server.api('POST', '/api/projects', { body: { name: 'canary', workingDir: workDir } });
    assert.equal(created.status, 201);
    assert.equal((await server.api('GET', `/api/projects/${created.body.id}`)).body.name, 'canary');
    assert.equal((await server.api('DELETE', `/api/projects/${created.body.id}`)).status, 204);
  }

  it('drops garbage lines with a warning and keeps the conversation going', async () => {
    const loaded = await loadFixture(server, 'fx-garbage');
    assert.equal(loaded.status, 201);
    assert.equal(loaded.body.state, 'running');
    for (let i = 0; i < 3; i++) {
      const res = await server.api('GET', '/api/fx-garbage/ok');
      assert.equal(res.status, 200);
      assert.equal(res.body.ok, true);
      assert.equal(res.body.unknown.error.code, 'UNKNOWN_TYPE');
      assert.equal(res.body.invalid.error.code, 'VALIDATION_ERROR');
      assert.match(res.body.invalid.error.message, /store\.key must be string/);
    }
    await waitForLog(server, /\[fx-garbage\] protocol: \{"kind":"invalid_json","sample":"this is not json"\}/);
    await waitForLog(server, /\[fx-garbage\] protocol: \{"kind":"not_object"/);
    await waitForLog(server, /\[fx-garbage\] split across two writes/);
    await assertServerFine();
  });

  it('survives a flood of log messages, stderr lines and a 20 MB line, serving others meanwhile, and logs the flood at its rate limit', async () => {
    assert.equal((await loadFixture(server, 'fx-flood')).status, 201);
    // The 20 MB line first, while the extension's log bucket is full: the warning about it is logged.
    const big = await server.api('POST', '/api/fx-flood/flood', { body: { bigLineMiB: 20 } });
    assert.equal(big.status, 200, big.text);
    assert.equal(big.body.flooded.bigLineMiB, 20);
    const oversize = await waitForLog(server, /\[fx-flood\] protocol: \{"kind":"oversize","bytes":(\d+)\}/);
    assert.equal(Number(oversize[1]), 20 * 1024 * 1024);

    const flood = server.api('POST', '/api/fx-flood/flood', { body: { logs: 20_000, stderrLines: 20_000 } });
    await waitFor('the flood to start', async () => (server.log().includes('[fx-flood] flood 100') ? true : undefined));
    await assertServerFine();
    const echo = await server.api('GET', '/api/fx-probe/echo/meanwhile');
    assert.equal(echo.status, 200);

    const done = await flood;
    assert.equal(done.status, 200, done.text);
    // Past its rate limit (200 lines a second, bursts of 1000) the lines are dropped, and the log says how many.
    await waitForLog(server, /\[fx-flood\] dropped \d+ log lines/);
    const logged = server.log().match(/\[fx-flood\] (stderr )?flood \d+/g)?.length ?? 0;
    assert.ok(logged < 10_000, `${logged} of 40000 flood lines were logged`);
    assert.equal((await server.api('GET', '/api/fx-flood/ok')).body.ok, true);
    assert.equal((await pluginInfo(server, 'fx-flood')).restarts, 0);
    await assertServerFine();
  });

  it('answers a request the extension never answers with 504 after its timeout_ms, serving others meanwhile', async () => {
    let hanging = true;
    const hung = server.api('GET', '/api/fx-probe/never').finally(() => (hanging = false));
    const echo = await server.api('GET', '/api/fx-probe/echo/still-here');
    assert.equal(echo.status, 200);
    assert.equal(echo.body.params.word, 'still-here');
    assert.equal((await server.api('GET', '/api/projects')).status, 200);
    assert.ok(hanging, 'the other requests were answered while the hung one waited');

    const res = await hung;
    assert.equal(res.status, 504);
    assert.equal(res.body.code, 'EXTENSION_TIMEOUT');
    assert.match(res.body.error, /fx-probe did not answer within 2000 ms/);
    assert.equal((await pluginInfo(server, 'fx-probe')).state, 'running');
    await assertServerFine();
  });

  it('fails the start of an extension that never sends ready, with a clear lastError', async () => {
    const loaded = await loadFixture(server, 'fx-noready');
    assert.equal(loaded.status, 503);
    assert.equal(loaded.body.code, 'EXTENSION_UNAVAILABLE');
    assert.match(loaded.body.error, /fx-noready sent no "ready" within 1500 ms/);
    const info = await pluginInfo(server, 'fx-noready');
    assert.match(info.lastError, /sent no "ready" within 1500 ms/);
    await waitForLog(server, /fx-noready: started, will never be ready/);
    // It is retried with backoff like a crash; unloading it ends that.
    assert.equal((await server.api('POST', '/api/plugins/fx-noready/unload')).status, 200);
    const route = await server.api('GET', '/api/fx-noready/anything');
    assert.equal(route.status, 404);
    await assertServerFine();
  });

  it('reports an extension that exits during start', async () => {
    const loaded = await loadFixture(server, 'fx-crashy');
    assert.equal(loaded.status, 503);
    assert.match(loaded.body.error, /fx-crashy exited during start-up \(code 3\)/);
    assert.match((await pluginInfo(server, 'fx-crashy')).lastError, /code 3/);
    await assertServerFine();
  });
});
