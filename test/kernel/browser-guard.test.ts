// What a web page can do with a server on the owner's machine: a foreign Origin is refused on /ws
// upgrades, /mcp and REST (before the loopback caller could count as the owner), a foreign Host
// (DNS rebinding) everywhere, and only origins listed in ROOST_ALLOWED_ORIGINS get CORS. Browsers'
// headers are sent with node:http, because fetch will not let a caller choose its Host.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.js';

const UI = 'http://ui.example:8080';
const EVIL = 'http://evil.example';
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const LIST_TOOLS = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

describe('browsers: Host, Origin and CORS', { timeout: 55_000 }, () => {
  let server: TestServer;
  let workDir: string;

  /** One HTTP request with exactly the headers given (Host included). */
  const raw = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<RawResponse>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, method, path, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text === '' ? null : JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const createProject = (headers: Record<string, string>) =>
    raw('POST', '/api/projects', { 'content-type': 'application/json', ...headers }, JSON.stringify({ name: 'from-a-page', workingDir: workDir }));
  const projectCount = async () => (await server.api('GET', '/api/projects?limit=200')).body.projects.length as number;

  /** Opens /ws with the given headers: the welcome message, or the refused upgrade's status and JSON body. */
  const upgrade = (headers: Record<string, string>) =>
    new Promise<{ welcome?: any; status?: number; body?: any }>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, { headers });
      socket.once('message', (data) => {
        socket.close();
        resolve({ welcome: JSON.parse(data.toString()) });
      });
      socket.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
      });
      socket.once('error', reject);
    });

  const assertRefused = (res: { status?: number; body?: any }, label: string) => {
    assert.equal(res.status, 403, label);
    assert.equal(res.body?.code, 'FORBIDDEN_ORIGIN', label);
    assert.match(res.body.error, /ROOST_ALLOWED_(ORIGINS|HOSTS)/, `${label}: the error says what to configure`);
  };

  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'roost-browser-'));
    server = await startTestServer({ env: { ROOST_ALLOWED_ORIGINS: `${UI}, https://other.example`, ROOST_ALLOWED_HOSTS: 'roost.internal', ROOST_PUBLIC_URL: 'https://roost.internal/' } });
  });
  after(async () => {
    await server.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('refuses a foreign Origin on a REST change, /mcp and a /ws upgrade, and changes nothing', async () => {
    const before = await projectCount();
    assertRefused(await createProject({ origin: EVIL }), 'REST POST');
    assertRefused(await raw('DELETE', '/api/projects/x', { origin: 'null' }), 'REST DELETE from an opaque origin');
    assert.equal(await projectCount(), before);

    const mcp = await raw('POST', '/mcp', { ...MCP_HEADERS, origin: EVIL }, LIST_TOOLS);
    assertRefused(mcp, '/mcp');
    assert.equal(mcp.body.result, undefined, 'no tools listed');

    const ws = await upgrade({ origin: EVIL });
    assert.equal(ws.welcome, undefined, 'never welcomed');
    assertRefused(ws, '/ws');
    // A page on the same host name but another port is another origin.
    assertRefused(await createProject({ origin: `http://127.0.0.1:${server.port + 1}` }), 'another port');
  });

  it('takes an Origin only as a bare origin of the scheme, host and port this server serves', async () => {
    const before = await projectCount();
    const self = `127.0.0.1:${server.port}`;
    const foreign = [
      `https://${self}`, // this server speaks plain http: an https page is another origin
      `http://${self}/x`, // a path
      `http://${self}/`,
      `http://user@${self}`, // userinfo
      `http://${self}?q`,
      `http://${self} junk`,
      `HTTP://${self}`, // not as a browser serializes it
      `ws://${self}`,
      `${UI}/x`, // a listed origin with a path
      'http://roost.internal', // ROOST_PUBLIC_URL names https, not http
    ];
    for (const origin of foreign) {
      assertRefused(await createProject({ origin }), origin);
      assertRefused(await upgrade({ origin }), `/ws ${origin}`);
    }
    assert.equal(await projectCount(), before);
    // Behind a TLS proxy the page is ROOST_PUBLIC_URL's origin, reached by its host name.
    const proxied = await createProject({ origin: 'https://roost.internal', host: 'roost.internal' });
    assert.equal(proxied.status, 201, JSON.stringify(proxied.body));
  });

  it('refuses a foreign Host (DNS rebinding) on REST reads and /ws', async () => {
    const read = await raw('GET', '/api/tenants/me', { host: `rebind.attacker.test:${server.port}` });
    assertRefused(read, 'REST GET');
    assert.equal(read.body.role, undefined);
    assertRefused(await raw('POST', '/mcp', { ...MCP_HEADERS, host: 'rebind.attacker.test' }, LIST_TOOLS), '/mcp');
    assertRefused(await upgrade({ host: `rebind.attacker.test:${server.port}` }), '/ws');
  });

  it('answers to the loopback names on any port and to ROOST_ALLOWED_HOSTS', async () => {
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, `[::1]:${server.port}`, 'LOCALHOST', 'roost.internal:443']) {
      const res = await raw('GET', '/api/tenants/me', { host });
      assert.equal(res.status, 200, host);
      assert.equal(res.body.role, 'owner', host);
    }
  });

  it('lets the same origin and callers without an Origin through, as the local owner', async () => {
    const self = `http://127.0.0.1:${server.port}`;
    const created = await createProject({ origin: self });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.headers['access-control-allow-origin'], undefined, 'same origin needs no CORS');
    assert.equal((await createProject({})).status, 201);
    assert.equal((await upgrade({ origin: self })).welcome.role, 'owner');
    assert.equal((await upgrade({})).welcome.role, 'owner');
    const mcp = await raw('POST', '/mcp', MCP_HEADERS, LIST_TOOLS);
    assert.equal(mcp.status, 200);
    assert.ok(mcp.body.result.tools.length > 0);
  });

  it('lets a listed origin through with CORS headers, and answers its preflight', async () => {
    const created = await createProject({ origin: UI });
    assert.equal(created.status, 201);
    assert.equal(created.headers['access-control-allow-origin'], UI);
    assert.match(String(created.headers.vary), /Origin/);
    const refusedBody = await raw('POST', '/api/projects', { origin: UI, 'content-type': 'application/json' }, '{');
    assert.equal(refusedBody.status, 400);
    assert.equal(refusedBody.headers['access-control-allow-origin'], UI, 'errors carry CORS too, so the page can read them');
    assert.equal((await upgrade({ origin: 'https://other.example' })).welcome.role, 'owner');
    assert.equal((await raw('POST', '/mcp', { ...MCP_HEADERS, origin: UI }, LIST_TOOLS)).headers['access-control-allow-origin'], UI);

    for (const path of ['/api/projects', '/mcp']) {
      const preflight = await raw('OPTIONS', path, { origin: UI, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' });
      assert.equal(preflight.status, 204, path);
      assert.equal(preflight.headers['access-control-allow-origin'], UI, path);
      assert.match(String(preflight.headers['access-control-allow-methods']), /\bPOST\b.*\bDELETE\b/, path);
      const allowed = String(preflight.headers['access-control-allow-headers']);
      assert.ok(allowed.includes('authorization') && allowed.includes('content-type'), `${path}: ${allowed}`);
      assert.ok(Number(preflight.headers['access-control-max-age']) > 0, path);
      assert.match(String(preflight.headers.vary), /Origin/, path);

      const foreign = await raw('OPTIONS', path, { origin: EVIL, 'access-control-request-method': 'POST' });
      assertRefused(foreign, `${path} foreign preflight`);
      assert.equal(Object.keys(foreign.headers).filter((h) => h.startsWith('access-control-')).length, 0, `${path}: no CORS headers`);
    }
  });

  it('records refusals in the audit trail like other authentication failures', async () => {
    assertRefused(await createProject({ origin: 'http://audited.example' }), 'REST POST');
    const res = await server.api('GET', '/api/audit-log?action=auth.failure&limit=500');
    const entry = res.body.entries.find((e: any) => e.detail.origin === 'http://audited.example');
    assert.ok(entry, JSON.stringify(res.body.entries.slice(0, 3)));
    assert.equal(entry.resource, 'POST /api/projects');
    assert.equal(entry.detail.code, 'FORBIDDEN_ORIGIN');
    assert.equal(entry.tenantId, null);
    const hosts = res.body.entries.filter((e: any) => /^rebind\.attacker\.test/.test(e.detail.host));
    assert.deepEqual(hosts.map((e: any) => e.resource).sort(), ['GET /api/tenants/me', 'GET /ws', 'POST /mcp']);
  });
});
