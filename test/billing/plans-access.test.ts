// Only billing moves a tenant's plan, and only the kernel answers for a new tenant or a new member: an
// extension that may `call` reaches the plans extension's internal routes, but is refused there.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadFixture } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const OWNER_KEY = 'rk_plans-access-test-owner-key-0123456789';

describe('the plans extension\'s internal routes', { timeout: 60_000 }, () => {
  let server: TestServer;
  const call = async (method: string, path: string, body: unknown) =>
    (await server.api('POST', '/api/fx-probe/host', { key: OWNER_KEY, body: { message: { type: 'call', method, path, tenantId: 'default', body } } })).body.value;

  before(async () => {
    server = await startTestServer({ env: { ROOST_API_KEY: OWNER_KEY } });
    assert.equal((await loadFixture(server, 'fx-probe', OWNER_KEY)).status, 201);
    assert.equal((await server.api('POST', '/api/plugins/fx-probe/grant', { key: OWNER_KEY, body: { capability: 'call' } })).status, 200);
  });
  after(() => server.cleanup());

  it('refuses a plan change, a tenant\'s creation and a member check from another extension', async () => {
    const refusals = [
      await call('PUT', '/api/internal/plans/tenants/default', { plan: 'free' }),
      await call('POST', '/api/internal/plans/tenant-created', { tenantId: 'x', body: { plan: 'enterprise' }, byOwner: true }),
      await call('POST', '/api/internal/plans/tenants/default/limit-check', { current: 0 }),
    ];
    assert.deepEqual(refusals.map((r) => [r?.status, r?.body?.code]), [[403, 'FORBIDDEN'], [403, 'FORBIDDEN'], [403, 'FORBIDDEN']], JSON.stringify(refusals));
    assert.equal((await server.api('GET', '/api/tenants/me', { key: OWNER_KEY })).body.plan, 'enterprise', 'unchanged');
    // Reading a plan is open to any extension that may call.
    assert.equal((await call('GET', '/api/internal/plans/tenants/default', undefined))?.body?.plan, 'enterprise');
  });
});
