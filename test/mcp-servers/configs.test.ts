// /api/mcp-servers: configs with sealed secrets, the roles that may write them, tenant isolation, bad
// input, and POST /:id/test against a real stdio server and a real Streamable HTTP server.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { callAs, createAgent, registerTenant, startServer, type Tenant } from '../agents/support.js';
import { sqliteFilesOnly, type TestServer } from '../helpers/server.js';
import { startHttpMcp, writeStdioServer, type HttpMcp } from './support.js';

describe('MCP server configs', () => {
  let server: TestServer;
  let other: Tenant;
  let script: string;
  let http: HttpMcp;
  let agent: any;
  let stranger: any;
  const stdio = (extra: Record<string, unknown> = {}) => ({
    name: 'files', transport: 'stdio', command: process.execPath, args: [script], env: { API_TOKEN: 'stdio-secret-value-42' }, agentIds: 'all', ...extra,
  });

  before(async () => {
    [server, script, http] = await Promise.all([startServer(), writeStdioServer(), startHttpMcp('http-secret-token-77')]);
    other = await registerTenant(server, 'mcp-other-org');
    agent = await createAgent(server, undefined, { name: 'config-agent', model: 'claude-sonnet-5-5' });
    stranger = await createAgent(server, undefined, { name: 'stranger-agent', model: 'claude-sonnet-5-5' });
  });
  after(async () => {
    await server.cleanup();
    await http.close();
  });

  it('creates a stdio config, masks its env values everywhere, and tests it', async () => {
    const res = await server.api('POST', '/api/mcp-servers', { body: stdio() });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.transport, 'stdio');
    assert.deepEqual(res.body.env, { API_TOKEN: '********' });
    assert.doesNotMatch(res.text, /stdio-secret-value-42/);
    const list = await server.api('GET', '/api/mcp-servers');
    assert.equal(list.body.total, 1);
    assert.doesNotMatch(list.text, /stdio-secret-value-42/);
    const one = await server.api('GET', `/api/mcp-servers/${res.body.id}`);
    assert.deepEqual(one.body.env, { API_TOKEN: '********' });

    const tested = await server.api('POST', `/api/mcp-servers/${res.body.id}/test`, { timeoutMs: 60_000 });
    assert.equal(tested.status, 200, tested.text);
    assert.equal(tested.body.ok, true, tested.text);
    assert.deepEqual(tested.body.tools.map((t: any) => [t.name, t.namespacedAs]), [['echo', 'mcp__files__echo'], ['env', 'mcp__files__env'], ['crash', 'mcp__files__crash']]);

    // A duplicate name in the same tenant is a conflict.
    assert.equal((await server.api('POST', '/api/mcp-servers', { body: stdio() })).status, 409);
  });

  it('keeps a masked value on update, replaces a new one, and never stores the plaintext', { skip: sqliteFilesOnly }, async () => {
    const res = await server.api('POST', '/api/mcp-servers', { body: stdio({ name: 'sealed', env: { KEEP: 'keep-me-secret-1', SWAP: 'old-secret-2' } }) });
    assert.equal(res.status, 201, res.text);
    const put = await server.api('PUT', `/api/mcp-servers/${res.body.id}`, { body: { env: { KEEP: '********', SWAP: 'new-secret-3' } } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.env, { KEEP: '********', SWAP: '********' });
    const unknownMask = await server.api('PUT', `/api/mcp-servers/${res.body.id}`, { body: { env: { OTHER: '********' } } });
    assert.equal(unknownMask.status, 400);
    assert.match(unknownMask.body.error, /OTHER/);
    const dir = join(server.dataDir, 'extensions', 'mcp-servers');
    const bytes = Buffer.concat(await Promise.all(['mcp-servers.sqlite', 'mcp-servers.sqlite-wal'].map((f) => readFile(join(dir, f)).catch(() => Buffer.alloc(0)))));
    assert.ok(bytes.length > 0);
    for (const secret of ['keep-me-secret-1', 'new-secret-3', 'stdio-secret-value-42']) assert.equal(bytes.includes(secret), false, secret);
    assert.equal(bytes.includes('KEEP'), true, 'the names are stored in the clear');
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
      key: other.operator,
      body: { name: 'adder', transport: 'http', url: http.url, headers: { Authorization: 'Bearer http-secret-token-77' }, agentIds: 'all' },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.headers, { Authorization: '********' });
    assert.equal(res.body.command, null);
    const tested = await server.api('POST', `/api/mcp-servers/${res.body.id}/test`, { key: other.operator });
    assert.equal(tested.body.ok, true, tested.text);
    assert.deepEqual(tested.body.tools.map((t: any) => t.namespacedAs), ['mcp__adder__add']);
    assert.ok(http.seen.includes('Bearer http-secret-token-77'));

    const wrong = await server.api('PUT', `/api/mcp-servers/${res.body.id}`, { key: other.operator, body: { headers: { Authorization: 'Bearer nope' } } });
    assert.equal(wrong.status, 200, wrong.text);
    const failed = await server.api('POST', `/api/mcp-servers/${res.body.id}/test`, { key: other.operator });
    assert.equal(failed.status, 200);
    assert.equal(failed.body.ok, false);
    assert.match(failed.body.error, /MCP server "adder" could not be reached/);
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
    assert.equal(httpConfig.name, 'adder');
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
    const foreignAgent = await server.api('POST', '/api/mcp-servers', { key: other.operator, body: { name: 'x', transport: 'http', url: http.url, agentIds: [agent.id] } });
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
