// Bad input on every kernel endpoint and on projects, over real HTTP: malformed JSON, wrong shapes and
// types, missing and extra fields, oversized bodies, bodies and WebSocket frames nested too deep or too
// wide, oversize headers, broken HTTP, unknown routes and ids, bad query parameters and paths that try
// to leave the allowed roots, and /mcp's body limits. Each gets a clear JSON error and nothing stored changes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createBundle } from '../agents/support.js';
import { sqliteFilesOnly, startTestServer, type ApiResponse, type TestServer } from '../helpers/server.js';
import { selectRows } from './sqlite-file.js';

function assertError(res: ApiResponse, status: number, code: string, label: string): void {
  assert.equal(res.status, status, `${label}: ${res.text}`);
  assert.equal(res.body?.code, code, label);
  assert.equal(typeof res.body.error, 'string', label);
  assert.ok(res.body.error.length > 5, `${label}: the error says something`);
  assert.ok(!/\bat .*\.(js|ts):\d+/.test(res.text), `${label}: no stack trace`);
}

describe('bad input', { timeout: 55_000 }, () => {
  let server: TestServer;
  let base: string;
  let allowed: string;
  let outside: string;
  let projectId: string;
  let bundles: string[];

  /** Everything a bad request could have changed, read back over the API and from the kernel database. */
  const snapshot = async () => {
    const plugins = await server.api('GET', '/api/plugins');
    return {
      projects: (await server.api('GET', '/api/projects?limit=200')).body,
      skills: (await server.api('GET', `/api/projects/${projectId}/skills`)).body,
      members: (await server.api('GET', '/api/tenants/me/members')).body,
      mode: (await server.api('GET', '/api/operational-mode')).body,
      // Loaded or not, never running or not: lazy extensions start when the requests above reach them.
      grants: plugins.body.plugins.map((p: any) => [p.name, p.state === 'unloaded', p.capabilities.granted]),
      tenants: await selectRows(join(server.dataDir, 'kernel.sqlite'), 'SELECT id, org, plan FROM tenants ORDER BY id'),
      keys: await selectRows(join(server.dataDir, 'kernel.sqlite'), 'SELECT key_hash, role, expires_at, revoked_at FROM api_keys ORDER BY key_hash'),
    };
  };

  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'roost-bad-'));
    allowed = join(base, 'allowed');
    outside = join(base, 'outside');
    await mkdir(join(allowed, 'proj', 'sub'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(allowed, 'file.txt'), 'not a directory');
    await symlink(outside, join(allowed, 'escape'));
    server = await startTestServer({ env: { ROOST_ALLOWED_ROOTS: allowed } });
    const created = await server.api('POST', '/api/projects', { body: { name: 'keep', workingDir: join(allowed, 'proj'), env_vars: { A: '1' } } });
    assert.equal(created.status, 201, created.text);
    projectId = created.body.id;
    bundles = [await createBundle(server, undefined, 'b1'), await createBundle(server, undefined, 'b2')];
    assert.equal((await server.api('PUT', `/api/projects/${projectId}/skills`, { body: { bundleIds: [bundles[0]] } })).status, 200);
  });
  after(async () => {
    await server.cleanup();
    await rm(base, { recursive: true, force: true });
  });

  it('refuses malformed, mis-shaped, incomplete, over-full and oversized bodies on every JSON endpoint', { skip: sqliteFilesOnly }, async () => {
    const before = await snapshot();
    const endpoints: Array<{ method: string; path: string; valid: Record<string, unknown>; wrongTypes: unknown[]; missing: unknown }> = [
      { method: 'POST', path: '/api/tenants/register', valid: { org: 'x' }, wrongTypes: [{ org: 5 }, { org: '' }, { org: 'x', plan: 3 }], missing: {} },
      { method: 'POST', path: '/api/tenants/me/members', valid: { role: 'viewer' }, wrongTypes: [{ role: 'admin' }, { role: 'viewer', expiresInDays: 'ten' }, { role: 'viewer', label: 7 }], missing: { label: 'x' } },
      { method: 'POST', path: '/api/operational-mode', valid: { mode: 'paused' }, wrongTypes: [{ mode: 1 }, { mode: 'stopped' }, { mode: null }], missing: {} },
      { method: 'POST', path: '/api/plugins/load', valid: { name: 'projects' }, wrongTypes: [{ path: 5 }, { name: 'Bad Name!' }, { path: '' }, { path: 'relative/plugin' }], missing: {} },
      { method: 'POST', path: '/api/plugins/projects/grant', valid: { capability: 'network' }, wrongTypes: [{ capability: ['network'] }, { capability: '' }, { capability: 'teleport' }], missing: {} },
      { method: 'POST', path: '/api/plugins/projects/revoke', valid: { capability: 'db' }, wrongTypes: [{ capability: 1 }, { capability: 'x'.repeat(65) }], missing: {} },
      { method: 'POST', path: '/api/projects', valid: { name: 'n', workingDir: allowed }, wrongTypes: [{ name: 1, workingDir: allowed }, { name: 'n', workingDir: true }, { name: 'n', workingDir: allowed, env_vars: ['A=1'] }, { name: 'n', workingDir: allowed, env_vars: { 'BAD-NAME': 'x' } }], missing: { name: 'n' } },
      { method: 'PUT', path: `/api/projects/${projectId}`, valid: { name: 'renamed' }, wrongTypes: [{ name: 7 }, { description: false }, { env_vars: { A: 2 } }], missing: {} },
      { method: 'PUT', path: `/api/projects/${projectId}/skills`, valid: { bundleIds: [bundles[1]] }, wrongTypes: [{ bundleIds: 'b2' }, { bundleIds: [1] }, { bundleIds: ['x', 'x'] }], missing: {} },
    ];
    for (const e of endpoints) {
      const label = (what: string) => `${e.method} ${e.path} ${what}`;
      const send = (options: { body?: unknown; raw?: string; headers?: Record<string, string> }) => server.api(e.method, e.path, options);
      for (const raw of ['{"org": ', '{bad json}', 'nul', '{"a":1}}', '"just a string"', '42', 'null', 'true']) {
        assertError(await send({ raw }), 400, 'VALIDATION_ERROR', label(`raw ${raw}`));
      }
      assertError(await send({ body: [] }), 400, 'VALIDATION_ERROR', label('array'));
      assertError(await send({ body: [e.valid] }), 400, 'VALIDATION_ERROR', label('array of a valid body'));
      assertError(await send({ body: e.missing }), 400, 'VALIDATION_ERROR', label('missing field'));
      for (const body of e.wrongTypes) assertError(await send({ body }), 400, 'VALIDATION_ERROR', label(`wrong type ${JSON.stringify(body)}`));
      const extra = await send({ body: { ...e.valid, sneaky: true } });
      assertError(extra, 400, 'VALIDATION_ERROR', label('extra field'));
      assert.match(extra.body.error, /sneaky/, label('the error names the extra field'));
      const plain = await send({ raw: JSON.stringify(e.valid), headers: { 'content-type': 'text/plain' } });
      assertError(plain, 400, 'VALIDATION_ERROR', label('text/plain'));
      assert.match(plain.body.error, /Content-Type: application\/json/, label('the error says how to send the body'));
      assertError(await send({ raw: JSON.stringify({ ...e.valid, pad: 'p'.repeat(1024 * 1024) }) }), 413, 'PAYLOAD_TOO_LARGE', label('oversized'));
    }
    assert.deepEqual(await snapshot(), before);
  });

  it('names the offending field in validation errors', async () => {
    const res = await server.api('POST', '/api/projects', { body: { name: 'n' } });
    assert.match(res.body.error, /workingDir/);
    const member = await server.api('POST', '/api/tenants/me/members', { body: { role: 'admin' } });
    assert.match(member.body.error, /role/);
  });

  it('reads a kernel route\'s JSON body whatever its framing: a byte order mark, a charset, chunked, empty', async () => {
    const json = { 'content-type': 'application/json; charset=utf-8' };
    const marked = await server.api('POST', '/api/operational-mode', { raw: '\uFEFF{"mode":"normal"}', headers: json });
    assert.equal(marked.status, 200, marked.text);
    assert.equal(marked.body.mode, 'normal');
    const chunked = await chunkedPost(server.port, '/api/operational-mode', json, '{"mode":"normal"}');
    assert.equal(chunked.status, 200, JSON.stringify(chunked.body));
    const big = await chunkedPost(server.port, '/api/operational-mode', json, JSON.stringify({ mode: 'normal', pad: 'p'.repeat(1024 * 1024) }));
    assert.equal(big.status, 413);
    assert.equal(big.body.code, 'PAYLOAD_TOO_LARGE');
    // No body at all reads as {}: the schema names what is missing.
    const empty = await server.api('POST', '/api/operational-mode', { raw: '', headers: json });
    assertError(empty, 400, 'VALIDATION_ERROR', 'empty');
    assert.match(empty.body.error, /mode/);
  });

  it('answers 404 ROUTE_NOT_FOUND for paths nobody serves, under /api and elsewhere', async () => {
    const paths: Array<[string, string]> = [
      ['GET', '/api/nope'], ['POST', '/api/nope'],
      ['GET', `/api/projects/${projectId}/unknown`], ['GET', '/nope'], ['GET', '/nope/deeper'], ['POST', '/a2a/unknown'], ['GET', '/api'],
      ['GET', '/api/projects/%E0%A4%A'],
    ];
    for (const [method, path] of paths) assertError(await server.api(method, path), 404, 'ROUTE_NOT_FOUND', `${method} ${path}`);
  });

  it('answers 405 METHOD_NOT_ALLOWED for known paths asked with a method they do not take', async () => {
    const paths: Array<[string, string]> = [['DELETE', '/api/projects'], ['PATCH', `/api/projects/${projectId}`], ['DELETE', '/api/health']];
    for (const [method, path] of paths) assertError(await server.api(method, path), 405, 'METHOD_NOT_ALLOWED', `${method} ${path}`);
  });

  it('answers 404 NOT_FOUND for unknown ids, and changes nothing', { skip: sqliteFilesOnly }, async () => {
    const before = await snapshot();
    const id = randomUUID();
    const requests: Array<[string, string, unknown?]> = [
      ['GET', `/api/projects/${id}`], ['PUT', `/api/projects/${id}`, { name: 'x' }], ['DELETE', `/api/projects/${id}`],
      ['GET', `/api/projects/${id}/skills`], ['PUT', `/api/projects/${id}/skills`, { bundleIds: ['b'] }],
      ['GET', '/api/projects/..%2F..%2Fetc%2Fpasswd'],
      ['DELETE', `/api/tenants/me/members/${'ab'.repeat(32)}`], ['DELETE', '/api/tenants/me/members/not-a-hash'],
      ['POST', '/api/plugins/nope/grant', { capability: 'network' }], ['POST', '/api/plugins/nope/revoke', { capability: 'network' }],
      ['POST', '/api/plugins/nope/unload'], ['POST', '/api/plugins/load', { name: 'no-such-extension' }],
    ];
    for (const [method, path, body] of requests) assertError(await server.api(method, path, { body }), 404, 'NOT_FOUND', `${method} ${path}`);
    assert.deepEqual(await snapshot(), before);
  });

  it('refuses bad query parameters with 400', async () => {
    const queries = [
      '/api/projects?limit=abc', '/api/projects?limit=0', '/api/projects?limit=201', '/api/projects?limit=1.5', '/api/projects?offset=-1',
      '/api/projects?limit=1&limit=2', '/api/audit-log?limit=abc', '/api/audit-log?offset=x', '/api/audit-log?since=yesterday',
      '/api/audit-log?until=2024-13-45T00:00:00Z', '/api/audit-log?bogus=1', '/api/audit-log?limit=-5', '/api/browse-dirs?path=a&path=b',
    ];
    for (const query of queries) {
      const res = await server.api('GET', query);
      assertError(res, 400, 'VALIDATION_ERROR', query);
      const name = /[?&]([a-z]+)=/.exec(query)![1]!;
      assert.match(res.body.error, new RegExp(name), `${query}: the error names the parameter`);
    }
  });

  it('keeps /api/browse-dirs inside the allowed roots, through .. and symlinks', async () => {
    const root = await server.api('GET', '/api/browse-dirs');
    assert.equal(root.status, 200);
    assert.deepEqual(root.body.roots, [allowed]);
    const inside = await server.api('GET', `/api/browse-dirs?path=${encodeURIComponent(allowed)}`);
    assert.equal(inside.status, 200);
    assert.deepEqual(inside.body.dirs.map((d: any) => d.name), ['proj'], 'the symlink out and the file are not offered');
    const sub = await server.api('GET', `/api/browse-dirs?path=${encodeURIComponent(join(allowed, 'proj'))}`);
    assert.equal(sub.body.parent, allowed);

    const refused = ['/tmp/../etc', '/etc', `${allowed}/../outside`, `${allowed}/proj/../../outside`, join(allowed, 'escape'), join(allowed, 'escape', '.')];
    for (const path of refused) {
      assertError(await server.api('GET', `/api/browse-dirs?path=${encodeURIComponent(path)}`), 403, 'FORBIDDEN', path);
    }
    assertError(await server.api('GET', '/api/browse-dirs?path=/tmp/../etc'), 403, 'FORBIDDEN', 'unencoded ..');
    assertError(await server.api('GET', `/api/browse-dirs?path=${encodeURIComponent(join(allowed, 'missing'))}`), 404, 'NOT_FOUND', 'missing dir');
    assertError(await server.api('GET', '/api/browse-dirs?path=relative/dir'), 400, 'VALIDATION_ERROR', 'relative');
    assertError(await server.api('GET', `/api/browse-dirs?path=${encodeURIComponent(join(allowed, 'file.txt'))}`), 400, 'VALIDATION_ERROR', 'a file');
  });

  it('refuses a workingDir outside the allowed roots, directly, through .. or through a symlink', { skip: sqliteFilesOnly }, async () => {
    const before = await snapshot();
    for (const workingDir of [outside, join(allowed, 'escape'), `${allowed}/../outside`, '/etc', tmpdir()]) {
      const created = await server.api('POST', '/api/projects', { body: { name: 'escape', workingDir } });
      assertError(created, 400, 'VALIDATION_ERROR', `create in ${workingDir}`);
      assert.match(created.body.error, /outside the allowed roots .*ROOST_ALLOWED_ROOTS/, "the error names the setting");
      assertError(await server.api('PUT', `/api/projects/${projectId}`, { body: { workingDir } }), 400, 'VALIDATION_ERROR', `move to ${workingDir}`);
    }
    assertError(await server.api('POST', '/api/projects', { body: { name: 'file', workingDir: join(allowed, 'file.txt') } }), 400, 'VALIDATION_ERROR', 'a file');
    assert.deepEqual(await snapshot(), before);
    // A path with .. that stays inside is fine, and is stored resolved.
    const ok = await server.api('POST', '/api/projects', { body: { name: 'inside', workingDir: `${allowed}/proj/sub/..` } });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.workingDir, join(allowed, 'proj'));
    assert.equal((await server.api('DELETE', `/api/projects/${ok.body.id}`)).status, 204);
  });

  it('refuses bodies nested too deep or with too many members before parsing them, on kernel and extension routes', { skip: sqliteFilesOnly }, async () => {
    const agent = await server.api('POST', '/api/agents', { body: { name: 'limits' } });
    assert.equal(agent.status, 201, agent.text);
    const before = await snapshot();
    const routes: Array<[string, string]> = [
      ['POST', '/api/tenants/me/members'], ['POST', '/api/operational-mode'], ['POST', '/api/projects'],
      ['PUT', `/api/projects/${projectId}`], ['PUT', `/api/agents/${agent.body.id}`],
    ];
    const manyKeys = `{${Array.from({ length: 100_001 }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`;
    for (const [method, path] of routes) {
      const label = (what: string) => `${method} ${path} ${what}`;
      const send = (raw: string) => server.api(method, path, { raw });
      for (const raw of [`{"name":${nestedArrays(5000)}}`, `{"name":"n","deep":${nestedObjects(5000)}}`]) {
        const res = await send(raw);
        assertError(res, 400, 'VALIDATION_ERROR', label('5,000 deep'));
        assert.match(res.body.error, /nested deeper than 64 levels/, label('the error names the limit'));
      }
      for (const raw of [`{"name":"n","items":[${'0,'.repeat(100_000)}0]}`, manyKeys]) {
        const res = await send(raw);
        assertError(res, 400, 'VALIDATION_ERROR', label('too many members'));
        assert.match(res.body.error, /more than 100000 members/, label('the error names the limit'));
      }
      assertError(await send(`{"name":"${'x'.repeat(1024 * 1024)}"}`), 413, 'PAYLOAD_TOO_LARGE', label('a string past the body limit'));
      // At the limit the body is parsed and reaches the route (an extension's too: its frame is within the protocol's limits).
      const deepest = await send(`{"name":"n","deep":${nestedArrays(63)}}`);
      assertError(deepest, 400, 'VALIDATION_ERROR', label('64 deep'));
      assert.match(deepest.body.error, /deep/, label('refused by the schema, which names the field'));
    }
    assert.deepEqual(await snapshot(), before);
    assert.equal((await server.api('GET', `/api/agents/${agent.body.id}`)).body.name, 'limits');
  });

  it('answers a WebSocket frame past the JSON limits with an error message, and the socket goes on', async () => {
    const ws = await server.ws();
    await ws.next((m) => m.type === 'welcome');
    for (const [frame, limit] of [[`{"type":"ping","x":${nestedArrays(5000)}}`, /nested deeper than 64/], [`{"type":"ping","x":[${'0,'.repeat(100_000)}0]}`, /members/]] as const) {
      ws.send(frame);
      const error = await ws.next((m) => m.type === 'error');
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.match(error.message, limit);
    }
    ws.send({ type: 'ping' });
    assert.equal((await ws.next((m) => m.type === 'pong')).type, 'pong');
    await ws.close();
  });

  it('answers headers too large with 431, broken HTTP with 400 and bad percent-encoding with 404, all as JSON', async () => {
    assertError(await server.api('GET', '/api/health', { headers: { 'x-padding': 'p'.repeat(20_000) } }), 431, 'HEADERS_TOO_LARGE', 'oversize headers');
    const broken = await rawExchange(server.port, 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n');
    assert.match(broken, /^HTTP\/1\.1 400 /);
    assert.equal(JSON.parse(broken.slice(broken.indexOf('\r\n\r\n') + 4)).code, 'VALIDATION_ERROR');
    const notFound: Array<[string, string, string]> = [
      ['DELETE', '/api/tenants/me/members/%E0%A4%A', 'NOT_FOUND'], ['POST', '/api/plugins/%E0%A4%A/unload', 'NOT_FOUND'],
      ['GET', '/api/agents/%E0%A4%A', 'ROUTE_NOT_FOUND'], ['GET', '/%', 'ROUTE_NOT_FOUND'],
    ];
    for (const [method, path, code] of notFound) assertError(await server.api(method, path), 404, code, `${method} ${path}`);
    const upgrade = await rawExchange(server.port, 'GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    assert.match(upgrade, /^HTTP\/1\.1 404 /);
    assert.equal(JSON.parse(upgrade.slice(upgrade.indexOf('\r\n\r\n') + 4)).code, 'ROUTE_NOT_FOUND');
    assert.equal((await server.api('GET', '/api/health')).status, 200);
  });

  it('holds /mcp to the 1 MiB body limit, declared or streamed, and to the JSON limits, with JSON-RPC errors', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const call = (params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params });
    const assertRpcError = (res: { status: number; body: any }, status: number, rpcCode: number, code: string, label: string) => {
      assert.equal(res.status, status, label);
      assert.equal(res.body.jsonrpc, '2.0', label);
      assert.equal(res.body.error.code, rpcCode, label);
      assert.equal(res.body.error.data.code, code, label);
      assert.equal(res.body.result, undefined, label);
    };
    const big = call({ pad: 'p'.repeat(1024 * 1024) });
    assertRpcError(await server.api('POST', '/mcp', { raw: big, headers }), 413, -32000, 'PAYLOAD_TOO_LARGE', 'declared');
    assertRpcError(await chunkedPost(server.port, '/mcp', headers, big), 413, -32000, 'PAYLOAD_TOO_LARGE', 'streamed');
    assertRpcError(await server.api('POST', '/mcp', { raw: call({ deep: JSON.parse(nestedArrays(64)) }), headers }), 400, -32600, 'VALIDATION_ERROR', 'too deep');
    assertRpcError(await server.api('POST', '/mcp', { raw: '{"jsonrpc":', headers }), 400, -32700, 'VALIDATION_ERROR', 'not JSON');
    const listed = await server.api('POST', '/mcp', { raw: call({}), headers });
    assert.equal(listed.status, 200, listed.text);
    assert.ok(listed.body.result.tools.length > 0);
  });
});

function nestedArrays(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

function nestedObjects(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Writes bytes on a fresh TCP connection and reads everything the server answers until it closes. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/** A POST without Content-Length: the body arrives in chunks, so only a streamed count can stop it. */
function chunkedPost(port: number, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    // The server may answer and close before the whole body is sent; the answer is what counts.
    req.on('error', (err) => (req.writableFinished ? undefined : reject(err)));
    for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.slice(at, at + 64 * 1024));
    req.end();
  });
}
