// kill -9 of the server in the middle of a write load: its extensions leave with it (no orphan keeps a
// database), a relaunch on the same data dir becomes ready with every acknowledged write present, and
// no request made while it comes back hangs: each gets an answer (200, or 503 with Retry-After).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, waitReady, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { childrenOf, isAlive, processesMentioning, writeLoad } from './lifecycle-support.js';

describe('crash recovery after kill -9', { timeout: 180_000 }, () => {
  let first: TestServer;
  let second: TestServer | undefined;
  let workDir: string;
  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'roost-crash-recovery-'));
    first = await startTestServer();
  });
  after(async () => {
    await second?.stop();
    await first.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('comes back with every acknowledged write and leaves no orphan behind', async (t) => {
    const load = writeLoad(first.url, workDir, 16);
    const oldPid = first.process.pid!;
    let oldExtensions: number[];
    try {
      await waitFor('the write load to be acknowledged', async () => (load.acknowledged.length >= 100 ? true : undefined), 60_000);
      oldExtensions = childrenOf(oldPid);
      // Extensions are lazy: what runs is what serves the load (projects) and what starts eagerly.
      assert.ok(oldExtensions.length >= 1, `the server runs the extensions serving the load (${oldExtensions.length} children)`);
      process.kill(oldPid, 'SIGKILL');
      await first.process;
    } finally {
      await load.stop();
    }
    // Every old extension leaves on its own once its stdin ends: none is left holding the data dir.
    await waitFor('the old extensions to leave', async () => (oldExtensions.some(isAlive) ? undefined : true), 15_000);
    assert.deepEqual(processesMentioning(first.dataDir), [], 'no process of the old server still runs on its data dir');

    const launched = Date.now();
    second = await startTestServer({ dataDir: first.dataDir, waitReady: false, env: { ROOST_EXTENSION_WAIT_MS: '2000' } });
    // Until ready, every request gets an answer: 200, or 503 with Retry-After.
    const answers: string[] = [];
    for (let ready = false; !ready;) {
      const res = await second.api('GET', '/api/projects', { timeoutMs: 30_000 });
      answers.push(`${res.status}${res.headers.get('retry-after') ? '+retry-after' : ''}`);
      assert.ok(res.status === 200 || (res.status === 503 && res.headers.has('retry-after')), `GET /api/projects answered ${res.status} ${res.text}`);
      ready = (await second.api('GET', '/health/ready')).status === 200;
    }
    await waitReady(second.url);
    t.diagnostic(`relaunch to ready: ${Date.now() - launched} ms (process spawn included); answers while coming back: ${answers.join(', ')}`);

    const missing = [];
    for (const id of load.acknowledged) {
      const res = await second.api('GET', `/api/projects/${id}`);
      if (res.status !== 200) missing.push(`${id}: ${res.status}`);
    }
    assert.deepEqual(missing, [], `${missing.length} of ${load.acknowledged.length} acknowledged writes are missing`);
    const created = await second.api('POST', '/api/projects', { body: { name: 'after-crash', workingDir: workDir } });
    assert.equal(created.status, 201);
  });
});
