// Authentication over real HTTP: who a caller is (loopback owner, configured key, registered keys),
// refusals for missing, wrong, malformed and expired keys, key rotation with its grace period,
// rate limiting and the body size limit.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const newOwnerKey = () => `rk_test_${randomBytes(16).toString('hex')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.deepEqual(Object.keys(res.body).filter((k) => k !== 'details').sort(), ['code', 'error']);
  assert.equal(res.body.code, code);
  assert.equal(typeof res.body.error, 'string');
  assert.ok(res.body.error.length > 0);
}

describe('auth: identities, bad keys and rotation', { timeout: 40_000 }, () => {
  const ownerKey = newOwnerKey();
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { ROOST_API_KEY: ownerKey, ROOST_KEY_GRACE_SECONDS: '1' } });
  });
  after(() => server.cleanup());

  it('treats a loopback caller without a key as the instance owner', async () => {
    const me = await server.api('GET', '/api/tenants/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.id, 'default');
    assert.equal(me.body.role, 'owner');
    assert.equal(me.body.keyHash, null);
  });

  it('adopts ROOST_API_KEY as an owner key of the default tenant, stored hashed', async () => {
    const me = await server.api('GET', '/api/tenants/me', { key: ownerKey });
    assert.equal(me.status, 200);
    assert.equal(me.body.id, 'default');
    assert.equal(me.body.role, 'owner');
    assert.equal(me.body.keyHash, sha256(ownerKey));
    const members = await server.api('GET', '/api/tenants/me/members', { key: ownerKey });
    assert.ok(members.body.members.some((m: any) => m.keyHash === sha256(ownerKey) && m.role === 'owner'));
    assert.ok(!members.text.includes(ownerKey), 'the key itself is never listed');
  });

  it('refuses a wrong key with 403 INVALID_API_KEY', async () => {
    assertError(await server.api('GET', '/api/projects', { key: newOwnerKey() }), 403, 'INVALID_API_KEY');
    assertError(await server.api('POST', '/api/projects', { key: 'rk_wrong', body: { name: 'x', workingDir: tmpdir() } }), 403, 'INVALID_API_KEY');
  });

  it('refuses a malformed Authorization header with 403', async () => {
    for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer two words', ownerKey, 'Token abc']) {
      const res = await server.api('GET', '/api/tenants/me', { headers: { authorization: header } });
      assertError(res, 403, 'INVALID_API_KEY');
    }
  });

  it('lets only owners rotate, and only with a key', async () => {
    const operator = await server.api('POST', '/api/tenants/me/members', { body: { role: 'operator', label: 'ops' } });
    const viewer = await server.api('POST', '/api/tenants/me/members', { body: { role: 'viewer', label: 'eyes' } });
    assert.equal(operator.status, 201);
    assert.equal(viewer.status, 201);
    assertError(await server.api('POST', '/api/settings/api-key/rotate', { key: operator.body.apiKey }), 403, 'FORBIDDEN');
    assertError(await server.api('POST', '/api/settings/api-key/rotate', { key: viewer.body.apiKey }), 403, 'FORBIDDEN');
    const keyless = await server.api('POST', '/api/settings/api-key/rotate');
    assertError(keyless, 400, 'VALIDATION_ERROR');
    assert.match(keyless.body.error, /Bearer/);
    // The refused rotations left both keys working and made no new one.
    assert.equal((await server.api('GET', '/api/tenants/me', { key: operator.body.apiKey })).body.role, 'operator');
    const status = await server.api('GET', '/api/settings/api-key/status', { key: viewer.body.apiKey });
    assert.equal(status.status, 200);
    assert.equal(status.body.activeKeys, 3);
  });

  it('rotates a key: the new one works, the old one works for the grace period, then is refused as expired', async () => {
    const rotated = await server.api('POST', '/api/settings/api-key/rotate', { key: ownerKey });
    assert.equal(rotated.status, 201);
    const fresh: string = rotated.body.apiKey;
    assert.match(fresh, /^rk_/);
    assert.notEqual(fresh, ownerKey);
    assert.equal(rotated.body.keyHash, sha256(fresh));
    assert.equal(rotated.body.previous.keyHash, sha256(ownerKey));
    const validUntil = Date.parse(rotated.body.previous.validUntil);
    assert.ok(validUntil > Date.now() - 1000 && validUntil <= Date.now() + 1500, `grace ends ${rotated.body.previous.validUntil}`);

    const during = await server.api('GET', '/api/tenants/me', { key: ownerKey });
    assert.equal(during.status, 200, 'the old key works during the grace period');
    const me = await server.api('GET', '/api/tenants/me', { key: fresh });
    assert.equal(me.body.role, 'owner');
    assert.equal(me.body.id, 'default');

    const status = await server.api('GET', '/api/settings/api-key/status', { key: fresh });
    assert.equal(status.status, 200);
    assert.equal(status.body.authenticated, true);
    assert.equal(status.body.keyHash, sha256(fresh));
    assert.equal(status.body.graceSeconds, 1);
    assert.ok(Date.parse(status.body.expiresAt) > Date.now() + 80 * 86_400_000, 'new keys get the default 90-day lifetime');
    assert.ok(status.body.expiresInSeconds > 80 * 86_400);

    await sleep(1_300);
    const expired = await server.api('GET', '/api/tenants/me', { key: ownerKey });
    assertError(expired, 403, 'INVALID_API_KEY');
    assert.match(expired.body.error, /expired/);
    assert.equal((await server.api('GET', '/api/tenants/me', { key: fresh })).status, 200);
  });

  it('reports the status of a keyless loopback caller', async () => {
    const status = await server.api('GET', '/api/settings/api-key/status');
    assert.equal(status.status, 200);
    assert.equal(status.body.authenticated, false);
    assert.equal(status.body.keyHash, null);
    assert.equal(status.body.expiresAt, null);
  });

  it('refuses a body over 1 MiB with 413 and stores nothing, whatever the content type', async () => {
    const workingDir = await mkdtemp(join(tmpdir(), 'roost-auth-'));
    const huge = JSON.stringify({ name: 'huge', workingDir, description: 'x'.repeat(1024 * 1024) });
    assertError(await server.api('POST', '/api/projects', { raw: huge }), 413, 'PAYLOAD_TOO_LARGE');
    assertError(await server.api('POST', '/api/projects', { raw: huge, headers: { 'content-type': 'text/plain' } }), 413, 'PAYLOAD_TOO_LARGE');
    assertError(await server.api('POST', '/api/tenants/register', { raw: JSON.stringify({ org: 'o'.repeat(1024 * 1024 + 1) }) }), 413, 'PAYLOAD_TOO_LARGE');
    const list = await server.api('GET', '/api/projects');
    assert.equal(list.body.total, 0);
    // Just under the limit is parsed (and then judged by the schema, not refused for size).
    const justUnder = JSON.stringify({ name: 'big', workingDir, description: 'x'.repeat(1024 * 1024 - 200) });
    const res = await server.api('POST', '/api/projects', { raw: justUnder });
    assertError(res, 400, 'VALIDATION_ERROR');
    assert.match(res.body.error, /description/);
  });
});

describe('auth: ROOST_LOCAL_AUTH=required', { timeout: 40_000 }, () => {
  const ownerKey = newOwnerKey();
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { ROOST_API_KEY: ownerKey, ROOST_LOCAL_AUTH: 'required' } });
  });
  after(() => server.cleanup());

  it('answers a keyless loopback caller with 401 AUTH_REQUIRED and a Bearer challenge', async () => {
    for (const [method, path] of [['GET', '/api/projects'], ['GET', '/api/tenants/me'], ['POST', '/api/projects'], ['GET', '/api/nowhere']] as const) {
      const res = await server.api(method, path, method === 'POST' ? { body: { name: 'x', workingDir: tmpdir() } } : {});
      assertError(res, 401, 'AUTH_REQUIRED');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/);
    }
  });

  it('keeps the health check and registration public', async () => {
    assert.equal((await server.api('GET', '/api/health')).status, 200);
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'public-co' } });
    assert.equal(registered.status, 201);
    assert.equal((await server.api('GET', '/api/tenants/me', { key: registered.body.apiKey })).body.org, 'public-co');
  });

  it('accepts the owner key and still refuses a wrong one with 403', async () => {
    const me = await server.api('GET', '/api/tenants/me', { key: ownerKey });
    assert.equal(me.status, 200);
    assert.equal(me.body.role, 'owner');
    assertError(await server.api('GET', '/api/tenants/me', { key: `${ownerKey}x` }), 403, 'INVALID_API_KEY');
    assert.equal((await server.api('GET', '/api/projects', { key: ownerKey })).body.total, 0, 'nothing was created by the refused POST');
  });
});

describe('auth: rate limiting (ROOST_RATE_LIMIT=5)', { timeout: 40_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { ROOST_RATE_LIMIT: '5' } });
  });
  after(() => server.cleanup());

  const register = async (org: string): Promise<string> => {
    const res = await server.api('POST', '/api/tenants/register', { body: { org } });
    assert.equal(res.status, 201, res.text);
    return res.body.apiKey;
  };

  it('answers the 6th request of a key within a minute with 429 RATE_LIMITED and Retry-After', async () => {
    const key = await register('busy');
    const other = await register('calm');
    for (let i = 1; i <= 5; i++) assert.equal((await server.api('GET', '/api/projects', { key })).status, 200, `request ${i}`);
    const limited = await server.api('GET', '/api/projects', { key });
    assertError(limited, 429, 'RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${limited.headers.get('retry-after')}`);
    assertError(await server.api('POST', '/api/projects', { key, body: { name: 'x', workingDir: tmpdir() } }), 429, 'RATE_LIMITED');
    // Buckets are per key: another tenant is not slowed down.
    assert.equal((await server.api('GET', '/api/projects', { key: other })).status, 200);
  });

  it('does not limit the keyless loopback owner', async () => {
    for (let i = 0; i < 12; i++) assert.equal((await server.api('GET', '/api/tenants/me')).status, 200);
  });

  it('counts refused keys against the caller address, so keys cannot be guessed at full speed', async () => {
    for (let i = 1; i <= 5; i++) assertError(await server.api('GET', '/api/projects', { key: newOwnerKey() }), 403, 'INVALID_API_KEY');
    assertError(await server.api('GET', '/api/projects', { key: newOwnerKey() }), 429, 'RATE_LIMITED');
  });
});
