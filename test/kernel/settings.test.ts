// Settings and the operational mode over real HTTP: what GET /api/settings tells each caller, and
// who may switch the instance between normal, queued and paused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('settings and operational mode', { timeout: 55_000 }, () => {
  let server: TestServer;
  let tenantKey: string;
  let tenantId: string;
  let viewerKey: string;
  let operatorKey: string;

  const mode = async () => (await server.api('GET', '/api/operational-mode')).body.mode;

  before(async () => {
    server = await startTestServer({
      env: { ROOST_RATE_LIMIT: '600', ROOST_KEY_GRACE_SECONDS: '120', ROOST_KEY_TTL_DAYS: '30', ROOST_EXT_DEVICE_LOGIN_CODE_TTL_SECONDS: 'soon' },
    });
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'Settled' } });
    tenantKey = registered.body.apiKey;
    tenantId = registered.body.tenant.id;
    viewerKey = (await server.api('POST', '/api/tenants/me/members', { body: { role: 'viewer' } })).body.apiKey;
    operatorKey = (await server.api('POST', '/api/tenants/me/members', { body: { role: 'operator' } })).body.apiKey;
  });
  after(() => server.cleanup());

  it('shows the instance owner its settings, limits and auth configuration', async () => {
    const res = await server.api('GET', '/api/settings');
    assert.equal(res.status, 200);
    assert.equal(res.body.tenantId, 'default');
    assert.equal(res.body.role, 'owner');
    assert.equal(res.body.operationalMode, 'normal');
    assert.deepEqual(res.body.limits, { bodyLimitBytes: 1024 * 1024, rateLimitPerMinute: 600 });
    assert.deepEqual(res.body.auth, { localAuthRequired: false, keyTtlDays: 30, keyGraceSeconds: 120 });
    assert.equal(typeof res.body.settings, 'object');
    assert.ok(!JSON.stringify(res.body).includes('rk_'), 'no key is ever part of the settings');
  });

  it('shows a tenant its own tenant and role', async () => {
    const res = await server.api('GET', '/api/settings', { key: tenantKey });
    assert.equal(res.status, 200);
    assert.equal(res.body.tenantId, tenantId);
    assert.equal(res.body.role, 'owner');
    assert.equal((await server.api('GET', '/api/settings', { key: viewerKey })).body.role, 'viewer');
  });

  it('switches the mode between normal, queued and paused', async () => {
    const initial = await server.api('GET', '/api/operational-mode');
    assert.deepEqual(initial.body, { mode: 'normal', modes: ['normal', 'queued', 'paused'] });
    for (const next of ['queued', 'paused', 'normal', 'paused']) {
      const set = await server.api('POST', '/api/operational-mode', { body: { mode: next } });
      assert.equal(set.status, 200);
      assert.deepEqual(set.body, { mode: next });
      assert.equal(await mode(), next);
    }
    assert.equal((await server.api('GET', '/api/settings', { key: tenantKey })).body.operationalMode, 'paused', 'every tenant sees the instance mode');
    assert.equal((await server.api('GET', '/api/operational-mode', { key: viewerKey })).body.mode, 'paused', 'a viewer may read it');
  });

  it('refuses a bad mode with 400 and keeps the current one', async () => {
    for (const body of [{ mode: 'stopped' }, { mode: 'PAUSED' }, { mode: '' }, { mode: 1 }, {}, { mode: 'normal', also: 'queued' }]) {
      const res = await server.api('POST', '/api/operational-mode', { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.match(res.body.error, /mode|also/);
    }
    assert.equal((await server.api('POST', '/api/operational-mode', { raw: 'paused' })).status, 400);
    assert.equal(await mode(), 'paused');
  });

  it('lets only the instance owner change the mode', async () => {
    for (const key of [tenantKey, viewerKey, operatorKey]) {
      const res = await server.api('POST', '/api/operational-mode', { key, body: { mode: 'normal' } });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'FORBIDDEN');
    }
    assert.equal(await mode(), 'paused');
    assert.equal((await server.api('POST', '/api/operational-mode', { body: { mode: 'normal' } })).status, 200);
    assert.equal(await mode(), 'normal');
    const changes = await server.api('GET', '/api/audit-log?action=POST%20/api/operational-mode&limit=100');
    assert.equal(changes.body.entries.filter((e: any) => e.detail.status === 200).length, 5);
    assert.equal(changes.body.entries.filter((e: any) => e.detail.status === 403).length, 3);
  });

  it('names the setting an extension refused in the error of the request that started it, and does not start it again', async () => {
    const res = await server.api('POST', '/api/auth/device', { body: { client_id: 'cli' } });
    assert.equal(res.status, 503);
    assert.equal(res.body.code, 'EXTENSION_UNAVAILABLE');
    assert.match(res.body.error, /^extension device-login exited during start-up \(code 78\): start-up failed: ROOST_EXT_DEVICE_LOGIN_CODE_TTL_SECONDS must be a number from 1 to \d+, got "soon"$/);
    // A configuration no restart heals (EX_CONFIG): failed at once, its budget not spent on starts that fail alike.
    const plugins = (await server.api('GET', '/api/plugins')).body.plugins as Array<{ name: string; state: string; lastError?: string; restarts: number }>;
    const deviceLogin = plugins.find((p) => p.name === 'device-login')!;
    assert.equal(deviceLogin.state, 'failed');
    assert.equal(deviceLogin.restarts, 0);
    assert.match(deviceLogin.lastError!, /ROOST_EXT_DEVICE_LOGIN_CODE_TTL_SECONDS must be a number from 1 to \d+, got "soon"$/);
    const again = await server.api('POST', '/api/auth/device', { body: { client_id: 'cli' } });
    assert.equal(again.status, 503);
    assert.match(again.body.error, /device-login failed: .*ROOST_EXT_DEVICE_LOGIN_CODE_TTL_SECONDS/);
  });
});
