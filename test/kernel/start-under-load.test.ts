// A busy machine starts slowly but never fails to start: with both cores saturated and a stall
// deadline of 3 s, every eager extension comes up at its first attempt, among them two whose start
// takes 4 s on purpose (one computing, one only writing progress lines) — a fixed 3 s timer would
// have failed both — and GET /api/projects serves. (At 1.5 s, a whole suite running beside the
// burners once starved the progress reading itself past the deadline.)
import assert from 'node:assert/strict';
import { execa, type ResultPromise } from 'execa';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

const slowDir = fileURLToPath(new URL('../fixtures/lifecycle-slow', import.meta.url));
const BURNERS = 4;

describe('start under load', { timeout: 300_000 }, () => {
  const burners: ResultPromise[] = [];
  let server: TestServer | undefined;
  before(() => {
    for (let i = 0; i < BURNERS; i++) burners.push(execa(process.execPath, ['-e', 'for (;;) {}'], { reject: false }));
  });
  after(async () => {
    for (const burner of burners) burner.kill('SIGKILL');
    await Promise.all(burners);
    await server?.cleanup();
  });

  it('starts every eager extension at the first attempt while they make progress', async () => {
    server = await startTestServer({ env: { ROOST_EXTENSION_DIRS: slowDir, ROOST_EXTENSION_START_STALL_MS: '3000' } });
    const plugins = (await server.api('GET', '/api/plugins')).body.plugins as Array<{ name: string; activation: string; state: string; restarts: number; lastError: string | null }>;
    const eager = plugins.filter((p) => p.activation === 'eager');
    assert.ok(eager.some((p) => p.name === 'lx-slow-cpu') && eager.some((p) => p.name === 'lx-slow-log'));
    for (const p of eager) {
      assert.equal(p.state, 'running', `${p.name}: ${p.lastError}`);
      assert.equal(p.restarts, 0, `${p.name} failed a start: ${p.lastError}`);
      assert.equal(p.lastError, null, p.name);
    }
    assert.doesNotMatch(server.log(), /sent no "ready"/);
    assert.equal((await server.api('GET', '/api/projects')).status, 200);
    assert.deepEqual((await server.api('GET', '/api/lx-slow-cpu/hello')).body, { hello: 'slow-cpu' });
    assert.deepEqual((await server.api('GET', '/api/lx-slow-log/hello')).body, { hello: 'slow-log' });
  });
});
