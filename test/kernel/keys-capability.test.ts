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

  it('binds a grant to an audience: its keys live as asked, work at that resource only, and only the minting extension revokes them', async () => {
    const audience = `${server.url}/mcp`;
    const week = 7 * 86_400;
    const granted = (await ask({ type: 'key_grant', role: 'viewer', ttlSeconds: week, audience }, acme.operator)).value;
    assert.ok(Date.parse(granted.expiresAt) > Date.now() + (week - 60) * 1000, 'an audience-bound grant may outlive an hour');
    const plain = (await ask({ type: 'key_grant', role: 'operator', ttlSeconds: week }, acme.operator)).value;
    assert.ok(Date.parse(plain.expiresAt) <= Date.now() + 3_600_000, 'any other grant still lives an hour at most');

    const minted = (await ask({ type: 'mint_key', grant: granted.grant, label: 'mcp probe', ttlSeconds: 120 })).value;
    assert.equal(minted.audience, audience);
    assert.ok(Date.parse(minted.expiresAt) <= Date.now() + 120_000);
    const atMcp = (key: string) => fetch(audience, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }),
    });
    assert.equal((await atMcp(minted.key)).status, 200);
    const rest = await server.api('GET', '/api/tenants/me', { key: minted.key });
    assert.equal(rest.status, 403);
    assert.match(rest.body.error, /issued for .*\/mcp only/);
    // The second use of the same grant: a fresh key (what a refresh token buys).
    assert.notEqual((await ask({ type: 'mint_key', grant: granted.grant, label: 'mcp probe' })).value.key, minted.key);

    const owners = (await server.api('GET', '/api/tenants/me/members', { key: acme.owner })).body.members as Array<{ keyHash: string; role: string }>;
    const ownerHash = owners.find((m) => m.role === 'owner')!.keyHash;
    assert.deepEqual((await ask({ type: 'revoke_key', keyHash: ownerHash })).value, { revoked: false }, 'not a key it minted');
    assert.equal((await server.api('GET', '/api/tenants/me', { key: acme.owner })).status, 200);
    assert.deepEqual((await ask({ type: 'revoke_key', keyHash: minted.keyHash })).value, { revoked: true });
    assert.notEqual((await atMcp(minted.key)).status, 200);
  });
});
