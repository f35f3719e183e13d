// Roost's authorization servers driven by a standard OAuth client from its own package, black-box over
// HTTP: openid-client v6 (panva's) discovers the MCP authorization server (RFC 8414), registers itself
// (RFC 7591), signs in with the code flow, PKCE S256 and the /mcp resource (RFC 8707) — the consent given
// through the consent page's API, as test/mcp-auth/oauth-flow.test.ts does — refreshes and sees a replayed
// refresh token refused; then the device flow (RFC 8628) of the device-login extension. That extension
// publishes no metadata of its own (its endpoints are not the MCP authorization server's), so its
// Configuration is built by hand from the documented endpoints (docs/device-auth.md).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const OWNER_KEY = `rk_${randomBytes(32).toString('base64url')}`;
const REDIRECT = 'http://127.0.0.1:9/callback';
// http on loopback: openid-client refuses plain http unless told otherwise.
const insecure = { execute: [oidc.allowInsecureRequests] };

describe('openid-client v6 against Roost', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ env: { ROOST_LOCAL_AUTH: 'required', ROOST_API_KEY: OWNER_KEY, ROOST_DEVICE_POLL_INTERVAL_SECONDS: '1' } });
  });
  after(async () => {
    await server.cleanup();
  });

  /** tools/list over JSON-RPC through openid-client's fetchProtectedResource: 200, or the 401's parsed challenge. */
  const listTools = async (config: oidc.Configuration, bearer: string): Promise<200 | oidc.WWWAuthenticateChallenge> => {
    const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    try {
      const res = await oidc.fetchProtectedResource(config, bearer, new URL(`${server.url}/mcp`), 'POST', body, headers);
      assert.equal(res.status, 200);
      const answer = (await res.json()) as { result: { tools: unknown[] } };
      assert.ok(answer.result.tools.length > 0);
      return 200;
    } catch (err) {
      if (!(err instanceof oidc.WWWAuthenticateChallengeError)) throw err;
      assert.equal(err.status, 401);
      const [challenge] = err.cause;
      assert.equal(challenge.scheme, 'bearer');
      assert.equal(challenge.parameters.resource_metadata, `${server.url}/.well-known/oauth-protected-resource/mcp`);
      return challenge;
    }
  };
  const refused = (challenge: 200 | oidc.WWWAuthenticateChallenge) => challenge !== 200 && challenge.parameters.error === 'invalid_token';

  const register = () => oidc.dynamicClientRegistration(new URL(server.url), { client_name: 'openid-client test', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }, oidc.None(), { ...insecure, algorithm: 'oauth2' });

  /** The authorization request with PKCE and the /mcp resource, answered by the owner through the consent API: the redirect the client's callback gets. */
  async function authorize(config: oidc.Configuration, action: 'allow' | 'deny'): Promise<{ callback: URL; verifier: string; state: string }> {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, resource: `${server.url}/mcp`,
    });
    const toConsent = await fetch(authorizationUrl, { redirect: 'manual' });
    assert.equal(toConsent.status, 302);
    const requestId = /\/ui\/#\/authorize\/([\w-]+)$/.exec(toConsent.headers.get('location')!)![1];
    const decided = await server.api('POST', `/api/oauth/requests/${requestId}`, { key: OWNER_KEY, body: { action, ...(action === 'allow' ? { role: 'operator' } : {}) } });
    assert.equal(decided.status, 200, decided.text);
    return { callback: new URL(decided.body.redirectTo), verifier, state };
  }

  it('discovers the MCP authorization server, registers, signs in with PKCE and the /mcp resource, refreshes', async () => {
    const config = await register();
    const metadata = config.serverMetadata();
    assert.equal(metadata.issuer, server.url);
    assert.equal(metadata.token_endpoint, `${server.url}/oauth/token`);
    assert.ok(metadata.supportsPKCE('S256'));
    const { client_id: clientId, token_endpoint_auth_method } = config.clientMetadata();
    assert.equal(token_endpoint_auth_method, 'none');
    // The same server found by discovery alone, for the client now registered.
    const discovered = await oidc.discovery(new URL(server.url), clientId, undefined, oidc.None(), { ...insecure, algorithm: 'oauth2' });
    assert.equal(discovered.serverMetadata().authorization_endpoint, metadata.authorization_endpoint);

    // openid-client checks the callback's state and iss (RFC 9207) before it spends the code.
    const { callback, verifier, state } = await authorize(config, 'allow');
    const resource = `${server.url}/mcp`;
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, { resource });
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.equal(tokens.scope, 'tenant:default role:operator');
    assert.ok((tokens.expiresIn() ?? 0) > 0);
    assert.equal(await listTools(config, tokens.access_token), 200);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, { resource });
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    assert.equal(await listTools(config, refreshed.access_token), 200);
    assert.ok(refused(await listTools(config, tokens.access_token)), 'the access token it replaced is revoked');

    await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!), (err: unknown) => {
      assert.ok(err instanceof oidc.ResponseBodyError, String(err));
      assert.equal(err.error, 'invalid_grant');
      assert.equal(err.status, 400);
      return true;
    });
    assert.ok(refused(await listTools(config, refreshed.access_token)), 'a replayed refresh token ends the sign-in');
  });

  it('reports a denial as the authorization error, and signs out with token revocation (RFC 7009)', async () => {
    const config = await register();
    const denied = await authorize(config, 'deny');
    await assert.rejects(oidc.authorizationCodeGrant(config, denied.callback, { pkceCodeVerifier: denied.verifier, expectedState: denied.state }), (err: unknown) => {
      assert.ok(err instanceof oidc.AuthorizationResponseError, String(err));
      assert.equal(err.error, 'access_denied');
      return true;
    });
    const { callback, verifier, state } = await authorize(config, 'allow');
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, { resource: `${server.url}/mcp` });
    await oidc.tokenRevocation(config, tokens.refresh_token!);
    assert.ok(refused(await listTools(config, tokens.access_token)));
  });

  it('signs a device in with the device flow (RFC 8628), approved through the API while it polls', async () => {
    // No discoverable metadata names these endpoints: the Configuration is made from the documented ones.
    const config = new oidc.Configuration(
      { issuer: server.url, device_authorization_endpoint: `${server.url}/api/auth/device`, token_endpoint: `${server.url}/api/auth/device/token` },
      'openid-client-device', undefined, oidc.None(),
    );
    oidc.allowInsecureRequests(config);
    // Each answer of the token endpoint, as openid-client sees it.
    const polls: string[] = [];
    config[oidc.customFetch] = async (url, options) => {
      const res = await fetch(url, options as RequestInit);
      if (url.endsWith('/token')) polls.push(res.ok ? 'ok' : ((await res.clone().json()) as { error: string }).error);
      return res;
    };
    const started = await oidc.initiateDeviceAuthorization(config, {});
    assert.equal(started.verification_uri, `${server.url}/ui/#/device`);
    assert.equal(started.interval, 1);
    // openid-client polls at the interval it was given; approved while it waits, it collects the key.
    const polling = oidc.pollDeviceAuthorizationGrant(config, started);
    await waitFor('a pending poll', async () => (polls.length > 0 ? true : undefined));
    const approved = await server.api('POST', '/api/auth/device/authorize', { key: OWNER_KEY, body: { user_code: started.user_code, action: 'approve', role: 'viewer' } });
    assert.equal(approved.status, 200, approved.text);
    const tokens = await polling;
    assert.deepEqual(polls.slice(-1), ['ok']);
    assert.ok(polls.slice(0, -1).every((error) => error === 'authorization_pending'), `never slow_down at the interval it asked for: ${polls}`);
    assert.equal(tokens.scope, 'tenant:default role:viewer');
    assert.equal((await server.api('GET', '/api/tenants/me', { key: tokens.access_token })).status, 200);
    // Collected once: a second poll is refused with RFC 6749's error.
    await assert.rejects(oidc.pollDeviceAuthorizationGrant(config, started), (err: unknown) => {
      assert.ok(err instanceof oidc.ResponseBodyError, String(err));
      assert.equal(err.error, 'invalid_grant');
      return true;
    });
    const denied = await oidc.initiateDeviceAuthorization(config, {});
    assert.equal((await server.api('POST', '/api/auth/device/authorize', { key: OWNER_KEY, body: { user_code: denied.user_code, action: 'deny' } })).status, 200);
    await assert.rejects(oidc.pollDeviceAuthorizationGrant(config, denied), (err: unknown) => {
      assert.ok(err instanceof oidc.ResponseBodyError, String(err));
      assert.equal(err.error, 'access_denied');
      return true;
    });
  });
});
