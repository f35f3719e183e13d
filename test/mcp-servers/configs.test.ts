// /api/mcp-servers: configs with sealed secrets, the roles that may write them, where an HTTP config may
// point, tenant isolation, bad input, and POST /:id/test against a real stdio server and a real
// Streamable HTTP server.
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { callAs, createAgent, FIXTURES, registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { storedText } from '../helpers/stored.js';
import { startHttpMcp, writeStdioServer, type HttpMcp } from './support.js';

const MASK = '********';

describe('MCP server configs', () => {
  let server: TestServer;
  let other: Tenant;
  let script: string;
  let http: HttpMcp;
  let agent: any;
  let stranger: any;
  const stdio = (extra: Record<string, unknown> = {}) => ({
    name: 'files', transport: 'stdio', command: process.execPath, args: [script, '--token=stdio-arg-secret-5'], env: { API_TOKEN: 'stdio-secret-value-42' }, agentIds: 'all', ...extra,
  });

  before(async () => {
    [script, http] = await Promise.all([writeStdioServer(), startHttpMcp('http-secret-token-77')]);
    // The instance owner's HTTP configs may reach loopback (the test's MCP server), by opt-in.
    server = await startTestServer({ env: { ROOST_EXTENSION_DIRS: FIXTURES, ROOST_EXT_MCP_SERVERS_ALLOW_LOOPBACK: '1' } });
    other = await registerTenant(server, 'mcp-other-org');
    agent = await createAgent(server, undefined, { name: 'config-agent', model: 'claude-sonnet-5-5' });
    stranger = await createAgent(server, undefined, { name: 'stranger-agent', model: 'claude-sonnet-5-5' });
  });
  after(async () => {
    await server.cleanup();
    await http.close();
  });

  it('creates a stdio config, masks its env values and args everywhere, and tests it', async () => {
    const res = await server.api('POST', '/api/mcp-servers', { body: stdio() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.transport, 'stdio');
    assert.deepEqual(res.body.env, { API_TOKEN: MASK });
    assert.deepEqual(res.body.args, [MASK, MASK]);
    assert.equal(res.body.url, null);
    assert.equal(res.body.secretsReadable, true);
    assert.doesNotMatch(res.text, /stdio-secret-value-42|stdio-arg-secret-5/);
    const list = await server.api('GET', '/api/mcp-servers');
    assert.equal(list.body.total, 1);
    assert.doesNotMatch(list.text, /stdio-secret-value-42|stdio-arg-secret-5|roost-mcp-stdio/);
    const one = await server.api('GET', `/api/mcp-servers/${res.body.id}`);
    assert.deepEqual(one.body.env, { API_TOKEN: MASK });
    assert.deepEqual(one.body.args, [MASK, MASK]);

    const tested = await server.api('POST', `/api/mcp-servers/${res.body.id}/test`, { timeoutMs: 60_000 });
    assert.equal(tested.status, 200, tested.text);
    assert.equal(tested.body.ok, true, tested.text);
    assert.deepEqual(tested.body.tools.map((t: any) => [t.name, t.namespacedAs]), [['echo', 'mcp__files__echo'], ['env', 'mcp__files__env'], ['crash', 'mcp__files__crash']]);

    // A duplicate name in the same tenant is a conflict.
    assert.equal((await server.api('POST', '/api/mcp-servers', { body: stdio() })).status, 409);
  });

  it('keeps a masked value on update, replaces a new one, and never stores the plaintext (env, args, url, headers)', async () => {
    const res = await server.api('POST', '/api/mcp-servers', { body: stdio({ name: 'sealed', args: [script, '--key=arg-secret-0', '--keep=arg-secret-4'], env: { KEEP: 'keep-me-secret-1', SWAP: 'old-secret-2' } }) });
    assert.equal(res.status, 201, res.text);
    const put = await server.api('PUT', `/api/mcp-servers/${res.body.id}`, { body: { env: { KEEP: MASK, SWAP: 'new-secret-3' }, args: [MASK, '--key=arg-secret-6', MASK] } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.env, { KEEP: MASK, SWAP: MASK });
    assert.deepEqual(put.body.args, [MASK, MASK, MASK]);
    const unknownMask = await server.api('PUT', `/api/mcp-servers/${res.body.id}`, { body: { env: { OTHER: MASK } } });
    assert.equal(unknownMask.status, 400);
    assert.match(unknownMask.body.error, /OTHER/);
    const argBeyond = await server.api('PUT', `/api/mcp-servers/${res.body.id}`, { body: { args: [MASK, MASK, MASK, MASK] } });
    assert.equal(argBeyond.status, 400);
    assert.match(argBeyond.body.error, /body\.args\[3\] is the mask/);
    // The kept and the new values reach the server: it still starts (args[0] is the script).
    assert.equal((await server.api('POST', `/api/mcp-servers/${res.body.id}/test`, { timeoutMs: 60_000 })).body.ok, true);

    const web = await server.api('POST', '/api/mcp-servers', {
      body: { name: 'sealed-http', transport: 'http', url: `${http.url}?token=url-secret-88`, headers: { Authorization: 'Bearer header-secret-7' }, agentIds: 'all' },
    });
    assert.equal(web.status, 201, web.text);
    assert.equal(web.body.url, `${new URL(http.url).origin}/${MASK}`);
    // The masked URL sent back keeps the stored one.
    const same = await server.api('PUT', `/api/mcp-servers/${web.body.id}`, { body: { url: web.body.url, description: 'kept' } });
    assert.equal(same.status, 200, same.text);
    assert.equal((await server.api('POST', `/api/mcp-servers/${web.body.id}/test`)).body.ok, false, 'the wrong header fails, so the URL was kept and reached');
    assert.ok(http.seen.includes('Bearer header-secret-7'));

    const stored = await storedText(server, 'mcp-servers');
    assert.ok(stored.includes(res.body.id), 'the configs are stored in what was read');
    for (const secret of ['keep-me-secret-1', 'new-secret-3', 'stdio-secret-value-42', 'arg-secret-0', 'arg-secret-4', 'arg-secret-6', 'stdio-arg-secret-5', 'url-secret-88', 'header-secret-7', 'roost-mcp-stdio']) {
      assert.equal(stored.includes(secret), false, secret);
    }
    assert.equal(stored.includes('KEEP'), true, 'the names are stored in the clear');
    for (const id of [res.body.id, web.body.id]) assert.equal((await server.api('DELETE', `/api/mcp-servers/${id}`)).status, 204);
  });

  it('offers an allowed agent the tools and runs them: env secrets reach the server, a crashed one restarts', async () => {
    const created = await server.api('POST', '/api/mcp-servers', { body: stdio({ name: 'envcheck', env: { GREETING: 'hello-from-env' }, agentIds: [agent.id] }) });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.agentIds, [agent.id]);
    const id = created.body.id;
    const offered = await callAs(server, undefined, 'GET', `/api/internal/mcp-servers/agents/${agent.id}/tools`);
    assert.equal(offered.status, 200, JSON.stringify(offered.body));
    const names = offered.body.tools.map((t: any) => t.name);
    assert.ok(names.includes('mcp__envcheck__env') && names.includes('mcp__files__echo'), names.join());
    const notOffered = await callAs(server, undefined, 'GET', `/api/internal/mcp-servers/agents/${stranger.id}/tools`);
    assert.equal(notOffered.body.tools.some((t: any) => t.name.startsWith('mcp__envcheck__')), false);

    const call = (agentId: string, tool: string, args: Record<string, unknown> = {}) => callAs(server, undefined, 'POST', `/api/internal/mcp-servers/${id}/call`, { agentId, tool, arguments: args });
    const env = await call(agent.id, 'env', { name: 'GREETING' });
    assert.deepEqual(env.body, { content: [{ type: 'text', text: 'hello-from-env' }], isError: false });
    // The extension's own environment (its key, the server's variables) is not the child's.
    assert.equal((await call(agent.id, 'env', { name: 'ROOST_EXTENSION_KEY' })).body.content[0].text, '(unset)');
    const first = (await call(agent.id, 'echo', { text: 'a' })).body.content[0].text;
    assert.equal((await call(agent.id, 'echo', { text: 'b' })).body.content[0].text.split('pid')[1], first.split('pid')[1], 'one pooled process');
    const crashed = await call(agent.id, 'crash');
    assert.equal(crashed.status, 502);
    assert.match(crashed.body.error, /MCP server "envcheck" failed calling crash/);
    const again = (await call(agent.id, 'echo', { text: 'c' })).body.content[0].text;
    assert.match(again, /^echo: c \(pid \d+\)$/);
    assert.notEqual(again.split('pid')[1], first.split('pid')[1], 'a fresh process after the crash');

    const refused = await call(stranger.id, 'echo', { text: 'x' });
    assert.equal(refused.status, 403);
    assert.match(refused.body.error, /may not use MCP server "envcheck"/);
    assert.equal((await server.api('PUT', `/api/mcp-servers/${id}`, { body: { enabled: false } })).status, 200);
    assert.equal((await call(agent.id, 'echo', { text: 'x' })).status, 403);
    const foreign = await callAs(server, other.owner, 'POST', `/api/internal/mcp-servers/${id}/call`, { agentId: agent.id, tool: 'echo', arguments: {} });
    assert.equal(foreign.status, 404);
  });

  it('tests a Streamable HTTP server with its header secret, and reports a wrong one clearly', async () => {
    const res = await server.api('POST', '/api/mcp-servers', {
      body: { name: 'adder', transport: 'http', url: http.url, headers: { Authorization: 'Bearer http-secret-token-77' }, agentIds: 'all' },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.headers, { Authorization: MASK });
    assert.equal(res.body.command, null);
    const tested = await server.api('POST', `/api/mcp-servers/${res.body.id}/test`);
    assert.equal(tested.body.ok, true, tested.text);
    assert.deepEqual(tested.body.tools.map((t: any) => t.namespacedAs), ['mcp__adder__add']);
    assert.ok(http.seen.includes('Bearer http-secret-token-77'));

    const wrong = await server.api('PUT', `/api/mcp-servers/${res.body.id}`, { body: { headers: { Authorization: 'Bearer nope' } } });
    assert.equal(wrong.status, 200, wrong.text);
    const failed = await server.api('POST', `/api/mcp-servers/${res.body.id}/test`);
    assert.equal(failed.status, 200);
    assert.equal(failed.body.ok, false);
    assert.match(failed.body.error, /MCP server "adder" could not be reached/);
    assert.equal((await server.api('DELETE', `/api/mcp-servers/${res.body.id}`)).status, 204);
  });

  it('refuses HTTP configs that point where their tenant may not reach: loopback, private, metadata, the server itself', async () => {
    const create = (key: string | undefined, url: string) => server.api('POST', '/api/mcp-servers', { key, body: { name: 'probe', transport: 'http', url, agentIds: 'all' } });
    const port = new URL(http.url).port;
    for (const url of [http.url, `http://localhost:${port}/mcp`, `http://[::1]:${port}/mcp`, 'http://10.0.0.8/mcp', 'http://192.168.1.1/mcp', 'http://169.254.169.254/latest', 'http://[fd00::2]/mcp']) {
      const res = await create(other.operator, url);
      assert.equal(res.status, 403, `${url}: ${res.text}`);
      assert.match(res.body.error, /is a loopback, private, link-local or reserved address; only public addresses may be reached from here/, url);
    }
    // Loopback is allowed to the instance owner here (by opt-in), but never the server's own port.
    for (const url of [`http://127.0.0.1:${server.port}/mcp`, `http://localhost:${server.port}/mcp`, `http://[::1]:${server.port}/mcp`]) {
      const res = await create(undefined, url);
      assert.equal(res.status, 403, `${url}: ${res.text}`);
      assert.match(res.body.error, /is this machine \(a loopback address\), which may not be reached from here/, url);
    }
    assert.equal((await create(undefined, 'http://169.254.169.254/')).status, 403);
    // A change of URL is checked too.
    const tenantConfig = await server.api('POST', '/api/mcp-servers', { key: other.operator, body: { name: 'remote', transport: 'http', url: 'https://mcp.example.com/mcp', agentIds: 'all' } });
    assert.equal(tenantConfig.status, 201, tenantConfig.text);
    const moved = await server.api('PUT', `/api/mcp-servers/${tenantConfig.body.id}`, { key: other.operator, body: { url: http.url } });
    assert.equal(moved.status, 403);
    // A name is checked as it resolves, when the connection is made.
    const name = hostname();
    if ((await lookup(name).then((a) => a.address, () => '')).startsWith('127.')) {
      const byName = await server.api('POST', '/api/mcp-servers', { key: other.operator, body: { name: 'by-name', transport: 'http', url: `http://${name}:${port}/mcp`, agentIds: 'all' } });
      assert.equal(byName.status, 201, byName.text);
      const tested = await server.api('POST', `/api/mcp-servers/${byName.body.id}/test`, { key: other.operator });
      assert.equal(tested.body.ok, false);
      assert.match(tested.body.error, new RegExp(`${name} \\(127\\.[\\d.]+\\) is a loopback, private`));
      const own = await server.api('POST', '/api/mcp-servers', { body: { name: 'own-by-name', transport: 'http', url: `http://${name}:${server.port}/mcp`, agentIds: 'all' } });
      const ownTest = await server.api('POST', `/api/mcp-servers/${own.body.id}/test`);
      assert.match(ownTest.body.error, /is this machine/);
      for (const id of [byName.body.id, own.body.id]) await server.api('DELETE', `/api/mcp-servers/${id}`, id === own.body.id ? {} : { key: other.operator });
    }
  });

  it('reports a stdio command that does not exist, with the reason', async () => {
    const res = await server.api('POST', '/api/mcp-servers', { body: { name: 'missing', transport: 'stdio', command: '/nonexistent/mcp-server', agentIds: 'all' } });
    assert.equal(res.status, 201, res.text);
    const tested = await server.api('POST', `/api/mcp-servers/${res.body.id}/test`, { timeoutMs: 60_000 });
    assert.equal(tested.body.ok, false);
    assert.match(tested.body.error, /MCP server "missing" could not be reached: .*ENOENT/);
  });

  it('lets only the instance owner write stdio configs; operators write http ones; viewers nothing', async () => {
    const byOperator = await server.api('POST', '/api/mcp-servers', { key: other.operator, body: stdio({ name: 'sneaky' }) });
    assert.equal(byOperator.status, 403);
    assert.match(byOperator.body.error, /instance owner/);
    const byTenantOwner = await server.api('POST', '/api/mcp-servers', { key: other.owner, body: stdio({ name: 'sneaky' }) });
    assert.equal(byTenantOwner.status, 403);
    const httpConfig = (await server.api('GET', '/api/mcp-servers', { key: other.viewer })).body.servers[0];
    assert.equal(httpConfig.name, 'remote');
    const toStdio = await server.api('PUT', `/api/mcp-servers/${httpConfig.id}`, { key: other.owner, body: { transport: 'stdio', command: '/bin/sh' } });
    assert.equal(toStdio.status, 403);
    const byViewer = await server.api('POST', '/api/mcp-servers', { key: other.viewer, body: { name: 'v', transport: 'http', url: http.url, agentIds: 'all' } });
    assert.equal(byViewer.status, 403);
  });

  it('answers another tenant\'s config exactly like an unknown one', async () => {
    const mine = (await server.api('GET', '/api/mcp-servers')).body.servers[0];
    for (const [method, path, body] of [
      ['GET', `/api/mcp-servers/${mine.id}`, undefined],
      ['PUT', `/api/mcp-servers/${mine.id}`, { enabled: false }],
      ['DELETE', `/api/mcp-servers/${mine.id}`, undefined],
      ['POST', `/api/mcp-servers/${mine.id}/test`, undefined],
      ['GET', '/api/mcp-servers/no-such-id', undefined],
    ] as const) {
      const res = await server.api(method, path, { key: other.owner, body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.code, 'NOT_FOUND');
    }
    assert.equal((await server.api('GET', '/api/mcp-servers', { key: other.owner })).body.servers.some((s: any) => s.id === mine.id), false);
    // Naming another tenant's agent is refused too.
    const foreignAgent = await server.api('POST', '/api/mcp-servers', { key: other.operator, body: { name: 'x', transport: 'http', url: 'https://mcp.example.com/x', agentIds: [agent.id] } });
    assert.equal(foreignAgent.status, 400);
    assert.match(foreignAgent.body.error, /agent .* not found/);
  });

  it('refuses malformed, oversized and contradictory bodies, and keeps what was stored', async () => {
    const before = (await server.api('GET', '/api/mcp-servers')).body.total;
    const cases: Array<[unknown, RegExp]> = [
      [{}, /body.name is required/],
      [{ ...stdio(), name: 'bad__name' }, /body.name/],
      [{ ...stdio(), name: 'x', transport: 'ftp' }, /body.transport must be one of/],
      [{ name: 'x', transport: 'stdio', agentIds: 'all' }, /command is required/],
      [{ name: 'x', transport: 'http', agentIds: 'all', url: 'file:///etc/passwd' }, /body.url/],
      [{ name: 'x', transport: 'http', agentIds: 'all', url: http.url, command: 'ls' }, /belong to a stdio server/],
      [{ ...stdio(), name: 'x', agentIds: 'some' }, /agentIds/],
      [{ ...stdio(), name: 'x', env: { 'BAD NAME': 'v' } }, /env/],
      [{ ...stdio(), name: 'x', extra: true }, /body.extra is not allowed/],
      [{ ...stdio(), name: 'x', args: Array.from({ length: 101 }, () => 'a') }, /args/],
      [{ ...stdio(), name: 'x', cwd: 'relative/dir' }, /cwd/],
      [[1, 2], /body must be object/],
    ];
    for (const [body, message] of cases) {
      const res = await server.api('POST', '/api/mcp-servers', { body });
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.match(res.body.error, message);
    }
    const malformed = await server.api('POST', '/api/mcp-servers', { raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
    const big = await server.api('POST', '/api/mcp-servers', { body: { ...stdio(), name: 'big', description: 'x'.repeat(2 * 1024 * 1024) } });
    assert.equal(big.status, 413);
    let deep: unknown = 'x';
    for (let i = 0; i < 200; i++) deep = { a: deep };
    const nested = await server.api('POST', '/api/mcp-servers', { body: { ...stdio(), name: 'deep', env: deep } });
    assert.equal(nested.status, 400);
    const empty = await server.api('PUT', `/api/mcp-servers/${(await server.api('GET', '/api/mcp-servers')).body.servers[0].id}`, { body: {} });
    assert.equal(empty.status, 400);
    assert.equal((await server.api('GET', '/api/mcp-servers')).body.total, before);
  });

  it('deletes a config', async () => {
    const res = await server.api('POST', '/api/mcp-servers', { body: stdio({ name: 'doomed' }) });
    assert.equal((await server.api('DELETE', `/api/mcp-servers/${res.body.id}`)).status, 204);
    assert.equal((await server.api('GET', `/api/mcp-servers/${res.body.id}`)).status, 404);
    assert.equal((await server.api('DELETE', `/api/mcp-servers/${res.body.id}`)).status, 404);
  });
});
