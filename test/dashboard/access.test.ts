// How the dashboard is served and who gets in: the page and its files with a strict CSP, nothing else
// under /ui/, the browser checks in front of it, the second port (ROOST_UI_PORT), and signing in with an
// API key when local callers need one (ROOST_LOCAL_AUTH=required), the WebSocket then opened by ticket,
// and a server that cannot answer for a moment (retried, never mistaken for a refused key).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { connectSocket } from '../helpers/server.js';
import { startDashboard, type Dashboard } from './browser.js';

const KEY = `rk_${randomBytes(32).toString('base64url')}`;

/** fetch() will not send another Host header: node:http does. */
function rawGet(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    }).on('error', reject);
  });
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('serving the dashboard and signing in', () => {
  let d: Dashboard;
  let uiPort: number;
  let script = '';
  before(async () => {
    uiPort = await freePort();
    d = await startDashboard({ env: { ROOST_LOCAL_AUTH: 'required', ROOST_API_KEY: KEY, ROOST_UI_PORT: String(uiPort) } });
  });
  after(() => d.close());

  it('sends / to the page, and serves the page with a strict Content-Security-Policy and no inline script', async () => {
    const root = await fetch(`${d.server.url}/`, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/ui/');
    assert.equal((await fetch(`${d.server.url}/ui`, { redirect: 'manual' })).headers.get('location'), '/ui/');
    const page = await d.server.api('GET', '/ui/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.doesNotMatch(page.text, /<script(?![^>]*\bsrc=)[^>]*>/, 'every script of the page is a file');
    assert.doesNotMatch(page.text, /style=|<style/);
    assert.match(page.text, /<link rel="icon" href="data:image\/svg\+xml,%3Csvg%20/, 'an icon of its own, inline: no /favicon.ico is asked for');
    script = /src="\/ui\/(app-[A-Z0-9]+\.js)"/.exec(page.text)![1]!;
    const js = await d.server.api('GET', `/ui/${script}`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type')!, /^text\/javascript/);
    assert.match(js.headers.get('cache-control')!, /immutable/);
    assert.doesNotMatch(js.text, /https?:\/\/(?!www\.w3\.org)[a-z]/i, 'the app loads nothing from elsewhere');
  });

  it('serves nothing else under /ui/: unknown files, escapes and other methods are refused', async () => {
    for (const path of ['/ui/nope.js', '/ui/..%2Fpackage.json', '/ui/%2E%2E%2Fpackage.json', '/ui/index.html.map', '/ui/..%2F..%2Fkernel.sqlite']) {
      const res = await d.server.api('GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.code, 'NOT_FOUND', path);
    }
    const post = await d.server.api('POST', '/ui/', { body: {}, key: KEY });
    assert.equal(post.status, 405);
    assert.match(post.headers.get('allow')!, /GET/);
    // A page on another name pointed at 127.0.0.1 (DNS rebinding) does not get the dashboard.
    const foreignHost = await rawGet(d.server.port, '/ui/', { host: 'evil.example' });
    assert.equal(foreignHost.status, 403);
    assert.equal(JSON.parse(foreignHost.body).code, 'FORBIDDEN_ORIGIN');
  });

  it('answers on ROOST_UI_PORT exactly as on the main port: page, API and WebSocket', async () => {
    const base = `http://127.0.0.1:${uiPort}`;
    const page = await fetch(`${base}/ui/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), new RegExp(script));
    assert.equal((await fetch(`${base}/api/tenants/me`)).status, 401);
    assert.equal((await fetch(`${base}/api/tenants/me`, { headers: { authorization: `Bearer ${KEY}` } })).status, 200);
    const foreign = await fetch(`${base}/api/agents`, { method: 'POST', headers: { origin: 'http://evil.example', authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(foreign.status, 403);
    const ws = await connectSocket(`ws://127.0.0.1:${uiPort}/ws`, KEY);
    assert.equal((await ws.next((m) => m.type === 'welcome')).role, 'owner');
    await ws.close();
  });

  it('asks for an API key when local callers need one, refuses a wrong one, and signs in with the right one', async () => {
    const { page } = d;
    await page.goto('/ui/');
    await page.getByRole('heading', { name: 'Sign in to Roost' }).waitFor();
    await d.checkAccessibility('the sign-in page');
    await page.getByLabel('API key').fill('rk_wrong');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: /key/i }).waitFor();
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    await page.getByText('default · owner').waitFor();
    // The key stays in this tab's sessionStorage and never goes into a URL; the WebSocket got a ticket.
    assert.equal(await page.evaluate(() => localStorage.getItem('roost.apiKey')), null);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('roost.apiKey')), KEY);
    await d.shot('signed-in-with-key');
    const audit = await d.server.api('GET', '/api/audit-log?action=auth.failure&limit=500', { key: KEY });
    assert.ok(!JSON.stringify(audit.body).includes(KEY));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Roost' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('roost.apiKey')), null);
  });

  it('opens the WebSocket with a one-time ticket, never with the key in a URL', async () => {
    const { page } = d;
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    page.on('websocket', (socket) => urls.push(socket.url()));
    const agent = (await d.server.api('POST', '/api/agents', { key: KEY, body: { name: 'Remote' } })).body;
    await page.goto('/ui/');
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: 'Chat', exact: true }).click();
    await page.getByLabel('Agent').selectOption(agent.id);
    await page.getByLabel('Your message').fill('hello');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('log', { name: 'Session stream' }).getByText('Hello from the fake.').waitFor();
    assert.ok(urls.some((url) => /\/ws\?ticket=/.test(url)), 'the socket was opened with a ticket');
    assert.ok(!urls.some((url) => url.includes(KEY) || url.includes(encodeURIComponent(KEY))), 'no URL carries the key');
  });

  it('lets a viewer read, shows the server refusing its changes, and offers it no plugin controls', async () => {
    const member = await d.server.api('POST', '/api/tenants/me/members', { key: KEY, body: { role: 'viewer', label: 'reader' } });
    assert.equal(member.status, 201, member.text);
    const { page } = d;
    await page.goto('/ui/');
    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
    await page.getByLabel('API key').fill(member.body.apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('default · viewer').waitFor();
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'Remote' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Not allowed');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('alert').filter({ hasText: 'viewers cannot change anything' }).waitFor();
    await page.getByRole('link', { name: 'Plugins' }).click();
    await page.getByRole('heading', { level: 2, name: 'analytics' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^(Revoke|Grant|Unload|Load) / }).count(), 0);
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('serves the signed-in app on ROOST_UI_PORT too', async () => {
    const { page } = d;
    await page.goto(`http://localhost:${uiPort}/ui/`);
    await page.getByLabel('API key').fill(KEY);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: 'Plugins' }).click();
    await page.getByRole('heading', { level: 2, name: 'dashboard' }).waitFor();
    await d.shot('ui-port-plugins');
  });

  it('keeps asking who is signed in while the server cannot answer, instead of asking for a key', async () => {
    const { page } = d;
    await page.goto('/ui/');
    await page.getByRole('heading', { name: 'Sign in to Roost' }).waitFor(); // its refusal has cleared any key
    await page.evaluate((key) => sessionStorage.setItem('roost.apiKey', key), KEY);
    // Two dropped connections: the app says the server cannot answer, asks again, and signs in.
    await page.route('**/api/tenants/me', (route) => route.abort('connectionreset'), { times: 2 });
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'The server cannot answer now' }).waitFor();
    await page.getByText('default · owner').waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Sign in to Roost' }).count(), 0);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('roost.apiKey')), KEY, 'the key is kept');
  });
});
