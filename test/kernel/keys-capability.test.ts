// The `keys` capability is narrow: an extension without it cannot mint a key at all, and one with it
// mints only for the caller of a request it is serving — that caller's tenant, at most that caller's
// role — through a grant the kernel signs, which the extension can neither forge nor widen.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { loadFixture } from '../fixtures/extensions/helpers.js';

const OWNER_KEY = 'rk_keys-capability-owner-key-0123456789';

describe('the keys capability', () => {
  let server: TestServer;
  let acme: { id: string; owner: string; operator: string };
  /** Has fx-probe send `message` to the host while serving a request of `key`'s caller. */
  const ask = async (message: Record<string, unknown>, key?: string) => (await server.api('POST', '/api/fx-probe/host', { body: { message }, ...(key ? { key } : {}) })).body;

  before(async () => {
    server = await startTestServer({ env: { ROOST_API_KEY: OWNER_KEY } });
    assert.equal((await loadFixture(server, 'fx-probe')).status, 201);
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'Acme' } });
    const operator = (await server.api('POST', '/api/tenants/me/members', { key: registered.body.apiKey, body: { role: 'operator' } })).body.apiKey;
    acme = { id: registered.body.tenant.id, owner: registered.body.apiKey, operator };
  });
  after(() => server.cleanup());

  it('is refused to an extension not granted it', async () => {
    assert.equal((await ask({ type: 'key_grant', role: 'viewer', ttlSeconds: 60 }, acme.owner)).error?.code, 'CAPABILITY_DENIED');
    assert.equal((await ask({ type: 'mint_key', grant: 'x.y', label: 'nothing' })).error?.code, 'CAPABILITY_DENIED');
  });

  it("mints a key of the caller's tenant with at most the caller's role, and nothing wider", async () => {
    assert.equal((await server.api('POST', '/api/plugins/fx-probe/grant', { body: { capability: 'keys' } })).status, 200);
    const tooHigh = await ask({ type: 'key_grant', role: 'owner', ttlSeconds: 60 }, acme.operator);
    assert.equal(tooHigh.error?.code, 'FORBIDDEN');
    assert.match(tooHigh.error.message, /operator cannot hand out the owner role/);

    const granted = (await ask({ type: 'key_grant', role: 'operator', ttlSeconds: 60 }, acme.operator)).value;
    assert.deepEqual([granted.tenantId, granted.role], [acme.id, 'operator']);
    const minted = (await ask({ type: 'mint_key', grant: granted.grant, label: 'probe key' })).value;
    const me = (await server.api('GET', '/api/tenants/me', { key: minted.key })).body;
    assert.deepEqual([me.id, me.role], [acme.id, 'operator']);

    // The grant names its tenant and role in the open; changing them breaks the kernel's signature.
    const [payload, signature] = granted.grant.split('.');
    const widened = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), tenantId: 'default', role: 'owner' })).toString('base64url');
    const forged = await ask({ type: 'mint_key', grant: `${widened}.${signature}`, label: 'forged' });
    assert.equal(forged.error?.code, 'FORBIDDEN');
    assert.equal((await ask({ type: 'mint_key', grant: `${payload}.AAAA`, label: 'forged' })).error?.code, 'FORBIDDEN');
  });

  it('grants only for a request in flight, never for a tenant the extension names', async () => {
    assert.equal((await ask({ type: 'key_grant', requestId: 'not-in-flight', role: 'viewer', ttlSeconds: 60 }, acme.owner)).error?.code, 'VALIDATION_ERROR');
    const named = await ask({ type: 'key_grant', requestId: 'not-in-flight', tenantId: acme.id, role: 'viewer', ttlSeconds: 60 }, acme.owner);
    assert.equal(named.error?.code, 'VALIDATION_ERROR');
  });
});
