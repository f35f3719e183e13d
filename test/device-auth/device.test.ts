// RFC 8628 over real HTTP: the device authorization response, every token error the RFC names
// (authorization_pending, slow_down, access_denied, expired_token) and RFC 6749's (invalid_request,
// invalid_grant, unsupported_grant_type), approval scoped to the approver's tenant and role, the plan's
// member limit, guessing of user codes rate-limited, and the verification page (the dashboard's).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

async function form(server: TestServer, path: string, fields: Record<string, string>): Promise<ApiResponse> {
  return server.api('POST', path, { raw: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
}

function assertOAuthError(res: ApiResponse, error: string): void {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error, error, res.text);
  assert.equal(typeof res.body.error_description, 'string');
  assert.equal(res.headers.get('cache-control'), 'no-store');
}

describe('device authorization (RFC 8628)', { timeout: 60_000 }, () => {
  const instanceKey = `rk_test_${randomBytes(16).toString('hex')}`;
  let server: TestServer;
  let shortLived: TestServer;
  let owner: string;
  let tenantId: string;

  before(async () => {
    const env = { ROOST_LOCAL_AUTH: 'required', ROOST_API_KEY: instanceKey, ROOST_DEVICE_POLL_INTERVAL_SECONDS: '1', ROOST_PLANS: JSON.stringify({ free: { members: 4 } }) };
    [server, shortLived] = await Promise.all([startTestServer({ env }), startTestServer({ env: { ...env, ROOST_DEVICE_CODE_TTL_SECONDS: '1' } })]);
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'Acme' } });
    owner = registered.body.apiKey;
    tenantId = registered.body.tenant.id;
  });
  after(async () => {
    await Promise.all([server.cleanup(), shortLived.cleanup()]);
  });

  const start = async (on = server, clientId = 'test-device') => {
    const res = await form(on, '/api/auth/device', { client_id: clientId });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const poll = (deviceCode: string, on = server, clientId = 'test-device') => form(on, '/api/auth/device/token', { grant_type: GRANT, device_code: deviceCode, client_id: clientId });
  const authorize = (body: unknown, key?: string) => server.api('POST', '/api/auth/device/authorize', { body, ...(key ? { key } : {}) });

  it('answers the device authorization request with exactly RFC 8628\'s fields', async () => {
    const res = await form(server, '/api/auth/device', { client_id: 'test-device', scope: 'anything' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['device_code', 'expires_in', 'interval', 'user_code', 'verification_uri', 'verification_uri_complete']);
    assert.match(res.body.user_code, USER_CODE);
    assert.equal(res.body.verification_uri, `${server.url}/ui/#/device`, "the dashboard's Approve a device page");
    assert.equal(res.body.verification_uri_complete, `${server.url}/ui/#/device/${res.body.user_code}`);
    assert.deepEqual([res.body.expires_in, res.body.interval], [600, 1]);
    assert.ok(res.body.device_code.length >= 40);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const json = await server.api('POST', '/api/auth/device', { body: { client_id: 'json-client' } });
    assert.equal(json.status, 200, 'JSON is accepted as well as the form');
    assertOAuthError(await form(server, '/api/auth/device', {}), 'invalid_request');
    assertOAuthError(await form(server, '/api/auth/device', { client_id: 'x'.repeat(600) }), 'invalid_request');
  });

  it('answers authorization_pending, then slow_down to a device that polls too fast', async () => {
    const codes = await start();
    assertOAuthError(await poll(codes.device_code), 'authorization_pending');
    const fast = await poll(codes.device_code);
    assertOAuthError(fast, 'slow_down');
    assert.match(fast.body.error_description, /6 s/, 'the interval grew by five seconds');
  });

  it('answers access_denied once the person denies', async () => {
    const codes = await start();
    const denied = await authorize({ user_code: codes.user_code, action: 'deny' }, owner);
    assert.deepEqual(denied.body, { status: 'denied', clientId: 'test-device' });
    assertOAuthError(await poll(codes.device_code), 'access_denied');
    assert.equal((await authorize({ user_code: codes.user_code, action: 'approve' }, owner)).status, 404, 'a decided code cannot be approved');
  });

  it('answers expired_token once the code has expired', async () => {
    const codes = await start(shortLived);
    const expired = await waitFor('expired_token', async () => {
      const res = await poll(codes.device_code, shortLived);
      return res.body.error === 'expired_token' ? res : undefined;
    }, 20_000);
    assertOAuthError(expired, 'expired_token');
  });

  it('issues, once, a key of the approver\'s tenant with the role asked for (at most the approver\'s)', async () => {
    const codes = await start();
    // Typed by a person: lower case, a space for the dash.
    const typed = codes.user_code.toLowerCase().replace('-', ' ');
    const approved = await authorize({ user_code: typed, action: 'approve', role: 'operator' }, owner);
    assert.equal(approved.status, 200, approved.text);
    assert.deepEqual(approved.body, { status: 'approved', clientId: 'test-device', tenantId, role: 'operator' });
    const token = await poll(codes.device_code);
    assert.equal(token.status, 200, token.text);
    assert.deepEqual(Object.keys(token.body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    assert.equal(token.body.token_type, 'Bearer');
    assert.equal(token.body.scope, `tenant:${tenantId} role:operator`);
    assert.equal(token.headers.get('cache-control'), 'no-store');
    const me = (await server.api('GET', '/api/tenants/me', { key: token.body.access_token })).body;
    assert.deepEqual([me.id, me.role], [tenantId, 'operator']);
    assertOAuthError(await poll(codes.device_code), 'invalid_grant');
  });

  it('refuses bad token requests with RFC 6749\'s errors', async () => {
    const codes = await start();
    assertOAuthError(await form(server, '/api/auth/device/token', { grant_type: 'password', device_code: codes.device_code, client_id: 'test-device' }), 'unsupported_grant_type');
    assertOAuthError(await form(server, '/api/auth/device/token', { grant_type: GRANT, client_id: 'test-device' }), 'invalid_request');
    assertOAuthError(await poll('not-a-device-code'), 'invalid_grant');
    assertOAuthError(await poll(codes.device_code, server, 'another-client'), 'invalid_grant');
    const text = await server.api('POST', '/api/auth/device/token', { raw: 'device_code=x', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.status, 400);
    assert.equal(text.body.code, 'VALIDATION_ERROR');
  });

  it('lets only a signed-in person approve, within their own role, for their own tenant', async () => {
    const codes = await start();
    const noKey = await authorize({ user_code: codes.user_code, action: 'approve' });
    assert.equal(noKey.status, 401);
    const viewer = (await server.api('POST', '/api/tenants/me/members', { key: owner, body: { role: 'viewer' } })).body.apiKey;
    assert.equal((await authorize({ user_code: codes.user_code, action: 'approve' }, viewer)).body.code, 'FORBIDDEN');
    const operator = (await server.api('POST', '/api/tenants/me/members', { key: owner, body: { role: 'operator' } })).body.apiKey;
    const tooHigh = await authorize({ user_code: codes.user_code, action: 'approve', role: 'owner' }, operator);
    assert.equal(tooHigh.status, 403);
    assert.match(tooHigh.body.error, /operator cannot hand out the owner role/);
    for (const bad of [{ action: 'approve' }, { user_code: codes.user_code }, { user_code: codes.user_code, action: 'maybe' }, { user_code: codes.user_code, action: 'approve', role: 'admin' }]) {
      assert.equal((await authorize(bad, owner)).status, 400);
    }
    const foreign = await server.api('POST', '/api/auth/device/authorize', { key: owner, body: { user_code: codes.user_code, action: 'approve' }, headers: { origin: 'https://evil.example' } });
    assert.equal(foreign.body.code, 'FORBIDDEN_ORIGIN');
    // Owner, viewer, operator and the device key of the earlier test: the free plan's four members.
    const full = await authorize({ user_code: codes.user_code, action: 'approve' }, owner);
    assert.equal(full.status, 403, full.text);
    assert.deepEqual([full.body.code, full.body.details.limit], ['PLAN_LIMIT', 'members']);
    assertOAuthError(await poll(codes.device_code), 'authorization_pending');
  });

  it('rate-limits guessing of user codes, whatever the guess', async () => {
    const guesser = (await server.api('POST', '/api/tenants/register', { body: { org: 'Guesser' } })).body.apiKey;
    const codes = await start();
    for (const guess of ['BCDF-GHJK', 'ZZZZ-ZZZZ', 'AAAA-EEEE', '12345678', 'BCDFGHJKL']) {
      assert.equal((await authorize({ user_code: guess, action: 'approve' }, guesser)).status, 404);
    }
    const limited = await authorize({ user_code: codes.user_code, action: 'approve' }, guesser);
    assert.equal(limited.status, 429, limited.text);
    assert.equal(limited.body.code, 'RATE_LIMITED');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assertOAuthError(await poll(codes.device_code), 'authorization_pending');
    assert.equal((await authorize({ user_code: codes.user_code, action: 'deny' }, owner)).status, 200, 'another person is not limited');
  });

  it('points the device at the dashboard, whose page is public, and serves no verification page of its own', async () => {
    const codes = await start();
    const page = await fetch(codes.verification_uri_complete.split('#')[0]);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.equal((await server.api('GET', '/api/auth/verify?user_code=bcdf-ghjk', { key: owner })).status, 404, 'the kernel page is gone');
  });
});
