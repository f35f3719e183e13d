// A remote MCP client signs in with a browser, end to end, as Claude Code or MCP Inspector would: the
// MCP SDK's own OAuth client provider (its InMemoryOAuthClientProvider) meets /mcp's 401, discovers the
// metadata, registers itself, sends the browser (Chromium, signed in to the dashboard) to the consent
// page, where the owner allows it as an operator; the code comes back to the client's loopback redirect,
// the SDK exchanges it and lists the tools; when its access token stops working the SDK refreshes it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryOAuthClientProvider } from '@modelcontextprotocol/sdk/examples/client/simpleOAuthClientProvider.js';
import { startDashboard, type Dashboard } from '../dashboard/browser.js';

const KEY = `rk_${randomBytes(32).toString('base64url')}`;

describe('an MCP client signing in through the dashboard', () => {
  let d: Dashboard;
  let callback: Server;
  let redirectUrl: string;
  const codes: Array<(code: string) => void> = [];
  const clients: Client[] = [];

  before(async () => {
    d = await startDashboard({ env: { ROOST_LOCAL_AUTH: 'required', ROOST_API_KEY: KEY } });
    await d.page.goto('/ui/');
    await d.page.getByLabel('API key').fill(KEY);
    await d.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await d.page.getByText('default · owner').waitFor();
    // The client's loopback redirect (RFC 8252 §7.3), as a native MCP client listens for it.
    callback = createServer((req, res) => {
      const code = new URL(req.url!, 'http://127.0.0.1').searchParams.get('code');
      res.writeHead(200, { 'content-type': 'text/plain' }).end(code ? 'Signed in: you may close this window.' : 'No code.');
      if (code) codes.shift()?.(code);
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    callback?.close();
    await d?.close();
  });

  async function connect(provider: InMemoryOAuthClientProvider): Promise<Client> {
    const client = new Client({ name: 'oauth-browser-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${d.server.url}/mcp`), { authProvider: provider }));
    clients.push(client);
    return client;
  }

  it('discovers, registers, is allowed on the consent page, gets tokens, lists the tools and refreshes', async () => {
    const provider = new InMemoryOAuthClientProvider(redirectUrl, {
      client_name: 'Inspector-like client', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
    }, (url) => void d.page.goto(url.href));
    const code = new Promise<string>((resolve) => codes.push(resolve));
    const transport = new StreamableHTTPClientTransport(new URL(`${d.server.url}/mcp`), { authProvider: provider });
    await assert.rejects(new Client({ name: 'first', version: '1' }).connect(transport), UnauthorizedError);
    assert.ok(provider.clientInformation()?.client_id, 'registered dynamically');

    const { page } = d;
    await page.getByRole('heading', { level: 1, name: 'Allow an MCP client' }).waitFor();
    await page.getByText('Inspector-like client').waitFor();
    await page.getByText(redirectUrl).waitFor();
    assert.deepEqual(await page.getByLabel('Role for the client').locator('option').allTextContents(), ['viewer', 'operator', 'owner']);
    await page.getByLabel('Role for the client').selectOption('operator');
    await d.checkAccessibility('the MCP consent page');
    await d.shot('mcp-authorize');
    await page.getByRole('button', { name: 'Allow' }).click();
    await transport.finishAuth(await code);

    const tokens = provider.tokens()!;
    assert.match(tokens.access_token, /^rk_/);
    assert.equal(tokens.scope, 'tenant:default role:operator');
    const { tools } = await (await connect(provider)).listTools();
    assert.ok(tools.some((t) => t.name === 'svc_list_projects'));
    assert.equal((await d.server.api('GET', '/api/tenants/me', { key: tokens.access_token })).status, 403, 'the token is for /mcp only');

    // The access token no longer works (as when it expires): /mcp answers invalid_token and the SDK refreshes.
    provider.saveTokens({ ...tokens, access_token: `rk_${randomBytes(32).toString('base64url')}` });
    const again = await (await connect(provider)).listTools();
    assert.equal(again.tools.length, tools.length);
    const renewed = provider.tokens()!;
    assert.notEqual(renewed.refresh_token, tokens.refresh_token, 'the refresh token rotates');
    assert.notEqual(renewed.access_token, tokens.access_token);
  });

  it('sends the client back with access_denied when the person denies it', async () => {
    const provider = new InMemoryOAuthClientProvider(redirectUrl, { client_name: 'Unwanted client', redirect_uris: [redirectUrl] }, (url) => void d.page.goto(url.href));
    await assert.rejects(new Client({ name: 'denied', version: '1' }).connect(new StreamableHTTPClientTransport(new URL(`${d.server.url}/mcp`), { authProvider: provider })), UnauthorizedError);
    await d.page.getByText('Unwanted client').waitFor();
    await d.page.getByRole('button', { name: 'Deny' }).click();
    await d.page.waitForURL((url) => url.href.startsWith(redirectUrl));
    const back = new URL(d.page.url());
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('code'), null);
  });
});
