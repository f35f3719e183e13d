// Readiness tells the truth: while an eager extension has not sent `ready`, GET /health/ready is 503
// with the reason and Retry-After, GET /health/live is 200, and a request to that extension gets a 503
// after a bounded wait instead of hanging. Once it is ready, so is the server. A cold lazy extension
// that takes longer than that bound to start is waited for: its first request is not a 503.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const gatedDir = fileURLToPath(new URL('../fixtures/lifecycle-gated', import.meta.url));
const ownerKey = 'readiness-owner-key-0123456789abcdef';

describe('readiness', { timeout: 120_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      waitReady: false,
      // Local callers need the key too, so the health routes below prove they are public.
      env: { ROOST_EXTENSION_DIRS: gatedDir, ROOST_EXTENSION_WAIT_MS: '300', ROOST_API_KEY: ownerKey, ROOST_LOCAL_AUTH: 'required' },
    });
  });
  after(() => server.cleanup());

  it('is live but not ready while an eager extension has not sent ready, and says why', async () => {
    const live = await server.api('GET', '/health/live');
    assert.equal(live.status, 200);
    assert.deepEqual(live.body, { status: 'live' });

    // The in-tree extensions come up; lx-gated waits for the test.
    const notReady = await waitFor('only lx-gated to hold readiness back', async () => {
      const res = await server.api('GET', '/health/ready');
      return res.status === 503 && res.body.reasons.length === 1 ? res : undefined;
    }, 60_000);
    assert.equal(notReady.body.status, 'starting');
    assert.deepEqual(notReady.body.reasons, ['extension lx-gated is starting']);
    assert.match(notReady.headers.get('retry-after') ?? '', /^\d+$/);

    const health = await server.api('GET', '/api/health');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'starting');
    assert.equal(health.body.extensions['lx-gated'], 'starting');
    assert.equal(health.body.extensionDetail['lx-gated'].activation, 'eager');
    assert.equal(health.body.extensionDetail['lx-gated'].startedAt, null);
    assert.equal(health.body.extensionDetail['lx-gated'].summary, 'starting');
    // Lazy extensions hold nothing back: idle, not started until first used (not "stopped", which reads as broken).
    assert.equal(health.body.extensions.projects, 'idle');
    assert.equal(health.body.extensionDetail.projects.activation, 'lazy');
    assert.equal(health.body.extensionDetail.projects.summary, 'idle (starts on first use)');
    assert.equal(health.body.extensionDetail['lx-lazy-slow'].state, 'idle');
    // The store, named as an operator expects.
    assert.deepEqual(Object.keys(health.body.store), ['kind', 'version', 'reachable']);
    assert.equal(health.body.store.kind, server.databaseUrl ? 'postgresql' : 'sqlite');
    assert.match(health.body.store.version, /^\d+\.\d+/);
    assert.equal(health.body.store.reachable, true);

    assert.equal((await server.api('GET', '/api/plugins')).status, 401, 'the rest of the API still needs the key');
  });

  it('answers a request to the extension that is still starting with 503 and Retry-After, without hanging', async () => {
    const res = await server.api('GET', '/api/lx-gated/hello', { key: ownerKey, timeoutMs: 30_000 });
    assert.equal(res.status, 503);
    assert.equal(res.body.code, 'EXTENSION_UNAVAILABLE');
    assert.match(res.body.error, /lx-gated cannot serve yet: it is still starting/);
    assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
  });

  it('waits for a cold lazy extension that starts slower than the bounded wait: no 503', async () => {
    const res = await server.api('GET', '/api/lx-lazy-slow/hello', { key: ownerKey, timeoutMs: 60_000 });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { hello: 'lazy' });
  });

  it('becomes ready once the extension is, and serves it', async () => {
    // The one folder of the server's data dir the sandboxed extension can see is its own.
    await writeFile(join(server.dataDir, 'extensions', 'lx-gated', 'release'), '');
    const ready = await waitFor('the server to be ready', async () => {
      const res = await server.api('GET', '/health/ready');
      return res.status === 200 ? res : undefined;
    }, 30_000);
    assert.deepEqual(ready.body, { status: 'ready' });
    assert.equal((await server.api('GET', '/health/live')).status, 200);
    const health = await server.api('GET', '/api/health');
    assert.equal(health.body.status, 'ok');
    assert.equal(health.body.extensions['lx-gated'], 'running');
    assert.equal(health.body.reasons, undefined);
    const hello = await server.api('GET', '/api/lx-gated/hello', { key: ownerKey });
    assert.equal(hello.status, 200);
    assert.deepEqual(hello.body, { hello: 'gated' });
  });
});
