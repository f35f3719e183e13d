// GET /api/health keeps the extensions' part of its document between requests (extension-health.ts):
// it must still show every change as it happens — an extension loaded, started, killed and restarted,
// unloaded, loaded again — while the per-request part (status, reasons, uptime) is computed each time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { loadFixture, pluginInfo } from '../fixtures/extensions/helpers.js';
import { waitFor } from '../helpers/wait.js';

describe('GET /api/health kept current', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { ROOST_CRASH_BUDGET: '2' } });
  });
  after(() => server.cleanup());

  const health = async () => {
    const res = await server.api('GET', '/api/health');
    assert.equal(res.status, 200);
    return res;
  };

  it('answers the same JSON document, in the same order, with the same content type', async () => {
    const res = await health();
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(Object.keys(res.body), ['status', 'version', 'uptimeSeconds', 'store', 'schemaVersions', 'extensions', 'extensionDetail']);
    assert.equal(res.body.status, 'ok');
    assert.equal(res.body.schemaVersions.kernel > 0, true);
    assert.deepEqual(Object.keys(res.body.extensionDetail.projects), ['state', 'summary', 'activation', 'startedAt', 'restarts', 'lastError']);
    assert.equal(Object.keys(res.body.extensions).length, Object.keys(res.body.extensionDetail).length);
    const head = await fetch(`${server.url}/api/health`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'application/json; charset=utf-8');
  });

  it('shows an extension loaded, started, killed and restarted, unloaded and loaded again', async () => {
    assert.equal((await health()).body.extensions['fx-lazy'], undefined);
    assert.equal((await loadFixture(server, 'fx-lazy')).status, 201);
    const idle = (await health()).body;
    assert.equal(idle.extensions['fx-lazy'], 'idle');
    assert.equal(idle.extensionDetail['fx-lazy'].summary, 'idle (starts on first use)');
    assert.equal(idle.schemaVersions['fx-lazy'], undefined);

    assert.equal((await server.api('GET', '/api/fx-lazy/pid')).status, 200);
    const running = (await health()).body;
    assert.equal(running.extensions['fx-lazy'], 'running');
    assert.match(running.extensionDetail['fx-lazy'].startedAt, /^\d{4}-/);
    assert.equal(running.extensionDetail['fx-lazy'].restarts, 0);
    assert.equal(running.schemaVersions['fx-lazy'], 1, 'the version its ready named');

    const { pid } = await pluginInfo(server, 'fx-lazy');
    process.kill(pid, 'SIGKILL');
    const restarted = await waitFor('the health document to show the restart', async () => {
      const body = (await health()).body;
      return body.extensionDetail['fx-lazy'].restarts === 1 ? body : undefined;
    });
    assert.match(restarted.extensionDetail['fx-lazy'].lastError, /SIGKILL/);

    assert.equal((await server.api('POST', '/api/plugins/fx-lazy/unload')).status, 200);
    const unloaded = (await health()).body;
    assert.equal(unloaded.extensions['fx-lazy'], 'unloaded');
    assert.equal(unloaded.extensionDetail['fx-lazy'].state, 'unloaded');

    assert.equal((await server.api('POST', '/api/plugins/load', { body: { name: 'fx-lazy' } })).status, 201);
    assert.equal((await health()).body.extensions['fx-lazy'], 'idle');
  });

  it('computes status and reasons per request: a failed extension degrades it, unloading it clears it', async () => {
    assert.equal((await loadFixture(server, 'fx-crashy')).status, 503);
    const degraded = await waitFor('fx-crashy to have failed', async () => {
      const body = (await health()).body;
      return body.extensions['fx-crashy'] === 'failed' ? body : undefined;
    });
    assert.equal(degraded.status, 'degraded');
    assert.ok(degraded.reasons.some((r: string) => r.startsWith('extension fx-crashy failed')), JSON.stringify(degraded.reasons));
    assert.match(degraded.extensionDetail['fx-crashy'].summary, /^failed: /);

    assert.equal((await server.api('POST', '/api/plugins/fx-crashy/unload')).status, 200);
    const ok = (await health()).body;
    assert.equal(ok.status, 'ok');
    assert.equal(ok.reasons, undefined);
    assert.equal(ok.extensions['fx-crashy'], 'unloaded');
  });
});
