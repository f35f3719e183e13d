// MCP authorization (spec 2025-06-18) without a browser: /mcp's 401 names its protected-resource
// metadata (RFC 9728), the authorization server's metadata (RFC 8414) passes the MCP SDK's own schemas,
// dynamic registration (RFC 7591) checks redirect URIs, the authorization request and the consent
// (answered here through the consent page's API) give a code that buys, with its PKCE verifier, an
// access token bound to /mcp, a tenant and a role, and a refresh token that rotates; refusals of
// foreign redirects, resources, audiences and tenants, and revocation (RFC 7009).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const OWNER_KEY = `rk_${randomBytes(32).toString('base64url')}`;
const REDIRECT = 'http://127.0.0.1:9/callback';

describe('MCP authorization: discovery, registration, code with PKCE, tokens', () => {
  let server: TestServer;
  let other: { key: string; tenantId: string };
  const clients: Client[] = [];

  const form = (path: string, body: Record<string, string>) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
  const register = async (metadata: object = { client_name: 'flow test', redirect_uris: [REDIRECT] }) =>
    fetch(`${server.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
  const pkce = () => {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  };
  const authorize = (params: Record<string, string>) => fetch(`${server.url}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });

  /** Registration, the authorization request, the consent of `key`'s holder (as `role`): the code and its verifier. */
  async function consent(key: string, role?: string): Promise<{ clientId: string; code: string; verifier: string; redirect: URL }> {
    const clientId = (await (await register()).json()).client_id as string;
    const { verifier, challenge } = pkce();
    const res = await authorize({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'st-1', resource: `${server.url}/mcp` });
    assert.equal(res.status, 302);
    const consentPage = res.headers.get('location')!;
    assert.match(consentPage, new RegExp(`^${server.url}/ui/#/authorize/[\\w-]+$`));
    const requestId = consentPage.split('/').pop()!;
    const shown = await server.api('GET', `/api/oauth/requests/${requestId}`, { key });
    assert.equal(shown.body.clientName, 'flow test');
    const decided = await server.api('POST', `/api/oauth/requests/${requestId}`, { key, body: { action: 'allow', ...(role ? { role } : {}) } });
    assert.equal(decided.status, 200, decided.text);
    const redirect = new URL(decided.body.redirectTo);
    assert.equal(`${redirect.origin}${redirect.pathname}`, REDIRECT);
    assert.equal(redirect.searchParams.get('state'), 'st-1');
    assert.equal(redirect.searchParams.get('iss'), server.url);
    return { clientId, code: redirect.searchParams.get('code')!, verifier, redirect };
  }

  async function tokensFor(key: string, role?: string): Promise<{ clientId: string; access_token: string; refresh_token: string; scope: string }> {
    const { clientId, code, verifier } = await consent(key, role);
    const res = await form('/oauth/token', { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT, resource: `${server.url}/mcp` });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    return { clientId, ...(await res.json()) };
  }

  async function connect(bearer: string, url = `${server.url}/mcp`): Promise<Client> {
    const client = new Client({ name: 'oauth-flow-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
    clients.push(client);
    return client;
  }
  const mcpStatus = async (bearer: string) => (await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }),
  }));

  before(async () => {
    server = await startTestServer({ env: { ROOST_LOCAL_AUTH: 'required', ROOST_API_KEY: OWNER_KEY } });
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'oauth-other' } });
    other = { key: registered.body.apiKey, tenantId: registered.body.tenant.id };
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server.cleanup();
  });

  it('answers /mcp without credentials with 401 naming its metadata, which names this server as its authorization server', async () => {
    const bare = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(bare.status, 401);
    const challenge = bare.headers.get('www-authenticate')!;
    assert.match(challenge, /^Bearer /);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1];
    assert.equal(metadataUrl, `${server.url}/.well-known/oauth-protected-resource/mcp`);
    for (const url of [metadataUrl, `${server.url}/.well-known/oauth-protected-resource`]) {
      const prm = OAuthProtectedResourceMetadataSchema.parse(await (await fetch(url)).json());
      assert.equal(prm.resource, `${server.url}/mcp`);
      assert.deepEqual(prm.authorization_servers, [server.url]);
    }
    const as = OAuthMetadataSchema.parse(await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json());
    assert.equal(as.issuer, server.url);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(as.grant_types_supported, ['authorization_code', 'refresh_token']);
    assert.equal(as.registration_endpoint, `${server.url}/oauth/register`);
    assert.equal((await fetch(`${server.url}/.well-known/openid-configuration`)).status, 404);
  });

  it('registers public clients with exact redirect URIs, and refuses redirects it cannot trust', async () => {
    const ok = await register({ client_name: 'native', redirect_uris: ['http://localhost:33418/callback', 'https://app.example/cb'], token_endpoint_auth_method: 'client_secret_basic' });
    assert.equal(ok.status, 201);
    const client = await ok.json();
    assert.equal(client.token_endpoint_auth_method, 'none');
    assert.equal(client.client_secret, undefined);
    for (const uris of [['http://203.0.113.9/cb'], ['javascript:alert(1)'], ['https://app.example/cb#frag'], []]) {
      const refused = await register({ redirect_uris: uris });
      assert.equal(refused.status, 400, JSON.stringify(uris));
      assert.match((await refused.json()).error, /^invalid_(redirect_uri|client_metadata)$/);
    }
    const { challenge } = pkce();
    const base = { response_type: 'code', client_id: client.client_id, code_challenge: challenge, code_challenge_method: 'S256' };
    // RFC 8252 §7.3: a loopback redirect on another port is the same native client.
    assert.equal((await authorize({ ...base, redirect_uri: 'http://localhost:50123/callback' })).status, 302);
    for (const redirect of ['http://localhost:50123/other', 'https://app.example/cb/more', 'https://evil.example/cb']) {
      const refused = await authorize({ ...base, redirect_uri: redirect });
      assert.equal(refused.status, 400, redirect);
      assert.equal(refused.headers.get('location'), null, 'never redirected to an unregistered URI');
    }
    assert.equal((await authorize({ ...base, client_id: 'nobody', redirect_uri: 'https://app.example/cb' })).status, 400);
    // Known client and redirect: the other errors go back to it.
    const plain = new URL((await authorize({ ...base, redirect_uri: 'https://app.example/cb', code_challenge_method: 'plain' })).headers.get('location')!);
    assert.equal(plain.searchParams.get('error'), 'invalid_request');
    const foreign = new URL((await authorize({ ...base, redirect_uri: 'https://app.example/cb', resource: 'https://203.0.113.9/mcp' })).headers.get('location')!);
    assert.equal(foreign.searchParams.get('error'), 'invalid_target');
  });

  it('exchanges a code once, with its PKCE verifier, for a token that works on /mcp only, in the consenting tenant and role', async () => {
    const { clientId, code, verifier } = await consent(OWNER_KEY, 'operator');
    const exchange = (extra: Record<string, string>) => form('/oauth/token', { grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, ...extra });
    const wrong = await exchange({ code_verifier: pkce().verifier });
    assert.equal(wrong.status, 400);
    assert.equal((await wrong.json()).error, 'invalid_grant');
    // The failed attempt spent the code: a code is tried once.
    const again = await exchange({ code_verifier: verifier });
    assert.equal((await again.json()).error, 'invalid_grant');

    const tokens = await tokensFor(OWNER_KEY, 'operator');
    assert.match(tokens.access_token, /^rk_/);
    assert.equal(tokens.scope, 'tenant:default role:operator');
    const { tools } = await (await connect(tokens.access_token)).listTools();
    assert.ok(tools.length > 0);
    // Bound to /mcp: refused on the REST API, and at /mcp under another name of this server (another audience).
    const rest = await server.api('GET', '/api/tenants/me', { key: tokens.access_token });
    assert.equal(rest.status, 403);
    assert.match(rest.body.error, /issued for .*\/mcp only/);
    const elsewhere = await fetch(`${server.url.replace('127.0.0.1', 'localhost')}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(elsewhere.status, 401);
    assert.match(elsewhere.headers.get('www-authenticate')!, /error="invalid_token"/);
  });

  it('keeps each tenant to its own: a token of another tenant sees its projects only, and no sign-in from a viewer', async () => {
    const workDir = await mkdtemp(`${tmpdir()}/roost-oauth-`);
    assert.equal((await server.api('POST', '/api/projects', { key: OWNER_KEY, body: { name: 'default-only', workingDir: workDir } })).status, 201);
    const theirs = await tokensFor(other.key);
    assert.equal(theirs.scope, `tenant:${other.tenantId} role:owner`);
    const listed = await (await connect(theirs.access_token)).callTool({ name: 'svc_list_projects', arguments: {} });
    assert.doesNotMatch(JSON.stringify(listed.content), /default-only/);
    const mine = await (await connect((await tokensFor(OWNER_KEY)).access_token)).callTool({ name: 'svc_list_projects', arguments: {} });
    assert.match(JSON.stringify(mine.content), /default-only/);
    // A viewer hands out no keys: not even a sign-in of their own.
    const viewer = await server.api('POST', '/api/tenants/me/members', { key: other.key, body: { role: 'viewer', label: 'watcher' } });
    assert.equal(viewer.status, 201, viewer.text);
    const res = await authorize({ response_type: 'code', client_id: (await (await register()).json()).client_id, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256' });
    const requestId = res.headers.get('location')!.split('/').pop()!;
    const refused = await server.api('POST', `/api/oauth/requests/${requestId}`, { key: viewer.body.apiKey, body: { action: 'allow', role: 'operator' } });
    assert.equal(refused.status, 403);
  });

  it('rotates refresh tokens: the used one and its access token stop, and a used one presented again ends the sign-in', async () => {
    const first = await tokensFor(OWNER_KEY);
    const refresh = (token: string, clientId = first.clientId) => form('/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: token });
    const byOther = await refresh(first.refresh_token, (await (await register()).json()).client_id);
    assert.equal((await byOther.json()).error, 'invalid_grant', 'another client cannot use it');
    const second = await (await refresh(first.refresh_token)).json();
    assert.match(second.access_token, /^rk_/);
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.equal((await mcpStatus(first.access_token)).status, 401, 'the access token it replaced is revoked');
    assert.equal((await mcpStatus(second.access_token)).status, 200);
    const replay = await refresh(first.refresh_token);
    assert.equal((await replay.json()).error, 'invalid_grant');
    assert.equal((await mcpStatus(second.access_token)).status, 401, 'a replayed refresh token revokes the whole sign-in');
    assert.equal((await (await refresh(second.refresh_token)).json()).error, 'invalid_grant');
  });

  it('revokes a sign-in by its refresh token, or one access token (RFC 7009)', async () => {
    const a = await tokensFor(OWNER_KEY);
    assert.equal((await form('/oauth/revoke', { token: a.refresh_token, client_id: a.clientId })).status, 200);
    assert.equal((await mcpStatus(a.access_token)).status, 401);
    assert.equal((await (await form('/oauth/token', { grant_type: 'refresh_token', client_id: a.clientId, refresh_token: a.refresh_token })).json()).error, 'invalid_grant');
    const b = await tokensFor(OWNER_KEY);
    assert.equal((await form('/oauth/revoke', { token: b.access_token })).status, 200);
    assert.equal((await mcpStatus(b.access_token)).status, 401);
    // Only keys this sign-in minted: the owner's own key is not revoked by presenting it.
    assert.equal((await form('/oauth/revoke', { token: OWNER_KEY })).status, 200);
    assert.equal((await server.api('GET', '/api/tenants/me', { key: OWNER_KEY })).status, 200);
  });
});
