// Graceful shutdown: SIGTERM under a write load loses no acknowledged write, lets a request in flight
// finish (its response closes the connection), closes WebSockets with 1001, restarts nothing, stops an
// extension that ignores stdin's end and SIGTERM, and exits 0. A second SIGTERM exits at once.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer, type TestSocket } from '../helpers/server.js';
import { pluginInfo, waitForLog } from '../fixtures/extensions/helpers.js';
import { waitFor } from '../helpers/wait.js';
import { isAlive, writeLoad } from './lifecycle-support.js';

const stubbornDir = fileURLToPath(new URL('../fixtures/lifecycle-stubborn', import.meta.url));
const env = { ROOST_EXTENSION_DIRS: stubbornDir, ROOST_SHUTDOWN_TIMEOUT_MS: '8000' };

describe('SIGTERM under load', { timeout: 180_000 }, () => {
  let server: TestServer;
  let workDir: string;
  let stubbornPid: number;
  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'roost-shutdown-'));
    server = await startTestServer({ env });
    stubbornPid = (await pluginInfo(server, 'lx-stubborn')).pid;
  });
  after(async () => {
    if (isAlive(stubbornPid)) process.kill(stubbornPid, 'SIGKILL');
    await server.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('drains, stops everything and exits 0, and every acknowledged write is there after a restart', async (t) => {
    const sockets: TestSocket[] = [await server.ws(), await server.ws()];
    const closeCodes = sockets.map((s) => new Promise<number>((resolve) => s.socket.once('close', (code) => resolve(code))));
    const load = writeLoad(server.url, workDir, 16);
    await waitFor('the write load to be acknowledged', async () => (load.acknowledged.length >= 50 ? true : undefined), 60_000);
    const slow = server.api('GET', '/api/lx-stubborn/slow?ms=1500');
    await waitForLog(server, /lx-stubborn: slow request 1500 ms received/);

    const signalled = Date.now();
    process.kill(server.process.pid!, 'SIGTERM');
    const exit = await server.process;
    t.diagnostic(`exited ${Date.now() - signalled} ms after SIGTERM; load outcomes ${JSON.stringify(Object.fromEntries(load.outcomes))}`);
    await load.stop();

    assert.equal(exit.exitCode, 0, server.log());
    const inFlight = await slow;
    assert.equal(inFlight.status, 200, 'the request in flight at SIGTERM was answered');
    assert.deepEqual(inFlight.body, { slept: 1500 });
    assert.equal(inFlight.headers.get('connection'), 'close');
    assert.deepEqual(await Promise.all(closeCodes), [1001, 1001]);
    assert.equal(isAlive(stubbornPid), false, 'the extension that ignored stdin and SIGTERM was killed');

    const log = server.log();
    const afterSignal = log.slice(log.indexOf('shutting down'));
    assert.doesNotMatch(afterSignal, /restarting|exited unexpectedly/, 'nothing was restarted during shutdown');
    assert.doesNotMatch(afterSignal, /not stopped within/);
    await waitForLog(server, /lx-stubborn: SIGTERM ignored/);

    const again = await startTestServer({ env, dataDir: server.dataDir });
    try {
      stubbornPid = (await pluginInfo(again, 'lx-stubborn')).pid;
      const missing = [];
      for (const id of load.acknowledged) {
        const res = await again.api('GET', `/api/projects/${id}`);
        if (res.status !== 200) missing.push(`${id}: ${res.status}`);
      }
      assert.deepEqual(missing, [], `${missing.length} of ${load.acknowledged.length} acknowledged writes are missing`);
    } finally {
      await again.stop();
    }
  });
});

describe('a second SIGTERM', { timeout: 120_000 }, () => {
  let server: TestServer;
  let stubbornPid: number;
  before(async () => {
    server = await startTestServer({ env: { ...env, ROOST_SHUTDOWN_TIMEOUT_MS: '60000' } });
    stubbornPid = (await pluginInfo(server, 'lx-stubborn')).pid;
  });
  after(async () => {
    if (isAlive(stubbornPid)) process.kill(stubbornPid, 'SIGKILL');
    await server.cleanup();
  });

  it('exits at once, non-zero, while the first is still draining', async () => {
    // A request that outlasts the test keeps the first shutdown draining.
    const slow = server.api('GET', '/api/lx-stubborn/slow?ms=600000').catch(() => undefined);
    await waitForLog(server, /lx-stubborn: slow request 600000 ms received/);
    process.kill(server.process.pid!, 'SIGTERM');
    await waitForLog(server, /SIGTERM: shutting down/);
    process.kill(server.process.pid!, 'SIGTERM');
    const exit = await server.process;
    assert.equal(exit.exitCode, 143);
    assert.match(server.log(), /second SIGTERM: exiting now/);
    await slow;
  });
});
