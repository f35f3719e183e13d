// The kernel's per-tenant read-only flag: set only by an extension granted `tenants` (with when and
// why, shown as given), it refuses every change of that tenant with 403 TENANT_READ_ONLY except on
// routes declared writable_when_read_only; and `system` is split, so `tenants` neither restarts the
// server nor reads its metrics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { loadFixture, pluginInfo } from '../fixtures/extensions/helpers.js';

const OWNER_KEY = 'rk_read-only-test-owner-key-0123456789';

describe('the tenant read-only flag', { timeout: 60_000 }, () => {
  let server: TestServer;
  let tenant: { id: string; key: string };
  /** Has fx-probe send `message` to the host as a request and returns { value } or { error }. */
  const ask = async (message: Record<string, unknown>) => (await server.api('POST', '/api/fx-probe/host', { key: OWNER_KEY, body: { message } })).body;
  const grant = (capability: string) => server.api('POST', '/api/plugins/fx-probe/grant', { key: OWNER_KEY, body: { capability } });
  const post = (path: string, body: unknown = {}) => server.api('POST', path, { key: tenant.key, body });
  const me = async () => (await server.api('GET', '/api/tenants/me', { key: tenant.key })).body;

  before(async () => {
    server = await startTestServer({ env: { ROOST_API_KEY: OWNER_KEY } });
    for (const name of ['fx-probe', 'fx-read-only']) assert.equal((await loadFixture(server, name, OWNER_KEY)).status, 201);
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'Frozen' } });
    assert.equal(registered.status, 201, registered.text);
    tenant = { id: registered.body.tenant.id, key: registered.body.apiKey };
  });
  after(() => server.cleanup());

  it('cannot be set by an extension without the tenants capability', async () => {
    const refused = await ask({ type: 'set_tenant_read_only', tenantId: tenant.id, at: new Date(Date.now() - 1000).toISOString() });
    assert.equal(refused.error?.code, 'CAPABILITY_DENIED');
    assert.match(refused.error.message, /capability "tenants" is not granted to fx-probe/);
    assert.equal((await ask({ type: 'tenant', tenantId: tenant.id })).error?.code, 'CAPABILITY_DENIED');
    assert.deepEqual([(await me()).readOnly, (await me()).plan], [false, 'free']);
    assert.equal((await post('/api/fx-read-only/change')).status, 200);
  });

  it('refuses a read-only tenant\'s changes, except on routes declared writable_when_read_only', async () => {
    assert.equal((await grant('tenants')).status, 200);
    const at = new Date(Date.now() - 1000).toISOString();
    const set = await ask({ type: 'set_tenant_read_only', tenantId: tenant.id, at, reason: 'the test froze it' });
    assert.deepEqual(set.value, { at, reason: 'the test froze it', readOnly: true }, JSON.stringify(set));
    assert.deepEqual([(await me()).readOnly, (await me()).readOnlyAt], [true, at]);

    const refused = await post('/api/fx-read-only/change');
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.code, 'TENANT_READ_ONLY');
    assert.match(refused.body.error, /the test froze it/);
    assert.equal((await post('/api/tenants/me/members', { role: 'viewer' })).body.code, 'TENANT_READ_ONLY', 'the kernel\'s own routes too');
    const wayOut = await post('/api/fx-read-only/way-out');
    assert.equal(wayOut.status, 200, wayOut.text);
    assert.equal(wayOut.body.changed, 'POST /api/fx-read-only/way-out');
    assert.equal((await server.api('GET', '/api/tenants/me', { key: tenant.key })).status, 200, 'reads answer');
    assert.equal((await server.api('POST', '/api/fx-read-only/change', { key: OWNER_KEY, body: {} })).status, 200, 'other tenants are not affected');

    assert.equal((await ask({ type: 'set_tenant_read_only', tenantId: tenant.id, at: null })).value.readOnly, false);
    assert.equal((await post('/api/fx-read-only/change')).status, 200);
    assert.deepEqual([(await me()).readOnly, (await me()).readOnlyAt], [false, null]);
  });

  it('refuses a bad flag with a clear error', async () => {
    const bad = await ask({ type: 'set_tenant_read_only', tenantId: tenant.id, at: 'soon' });
    assert.equal(bad.error?.code, 'VALIDATION_ERROR');
    assert.match(bad.error.message, /ISO 8601/);
    assert.equal((await ask({ type: 'set_tenant_read_only', tenantId: 'no-such-tenant', at: null })).error?.code, 'NOT_FOUND');
  });

  it('splits system: tenants neither restarts the server nor reads its metrics', async () => {
    const restart = await ask({ type: 'restart', reason: 'try' });
    assert.equal(restart.error?.code, 'CAPABILITY_DENIED');
    assert.match(restart.error.message, /capability "restart" is not granted/);
    assert.match((await ask({ type: 'system_metrics' })).error?.message ?? '', /capability "metrics" is not granted/);
    const system = await grant('system');
    assert.equal(system.status, 400, system.text);
    assert.match(system.body.error, /unknown capability "system"/);
    // The in-tree extensions hold what they use: billing changes tenants, operations restarts and samples.
    const billing = (await pluginInfo(server, 'billing', OWNER_KEY)).capabilities.granted;
    assert.ok(billing.includes('tenants') && !billing.includes('restart') && !billing.includes('metrics'), billing.join(', '));
    const operations = (await pluginInfo(server, 'operations', OWNER_KEY)).capabilities.granted;
    assert.ok(operations.includes('restart') && operations.includes('metrics') && !operations.includes('tenants'), operations.join(', '));
  });
});
