// The MCP server configs refuse callers without the right to act — no key, a bad key, a foreign web
// page — on every route, from a caller that is not the local owner, and nothing changes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assertRefusedWithoutRights, LOCKED_SERVER_ENV } from '../helpers/refusals.js';

const OWNER = 'rk_mcp_servers_guarded_owner_0123456789ab';

describe('MCP server configs: callers without the right to act', () => {
  let server: TestServer;
  let config: any;
  before(async () => {
    server = await startTestServer({ env: LOCKED_SERVER_ENV(OWNER) });
    const res = await server.api('POST', '/api/mcp-servers', { key: OWNER, body: { name: 'kept', transport: 'stdio', command: '/bin/true', env: { TOKEN: 'guarded-secret' }, agentIds: 'all' } });
    assert.equal(res.status, 201, res.text);
    config = res.body;
  });
  after(() => server.cleanup());

  it('refuses no key, a bad key and a foreign origin on every route, and changes nothing', async () => {
    await assertRefusedWithoutRights(server, OWNER, [
      { method: 'GET', path: '/api/mcp-servers' },
      { method: 'POST', path: '/api/mcp-servers', body: { name: 'sneaky', transport: 'stdio', command: '/bin/sh', args: ['-c', 'id'], agentIds: 'all' } },
      { method: 'GET', path: `/api/mcp-servers/${config.id}` },
      { method: 'PUT', path: `/api/mcp-servers/${config.id}`, body: { command: '/bin/sh' } },
      { method: 'DELETE', path: `/api/mcp-servers/${config.id}` },
      { method: 'POST', path: `/api/mcp-servers/${config.id}/test` },
    ]);
    const list = await server.api('GET', '/api/mcp-servers', { key: OWNER });
    assert.deepEqual(list.body.servers.map((s: any) => [s.name, s.command, s.updatedAt]), [['kept', '/bin/true', config.updatedAt]]);
  });

  it('serves its internal routes to extensions only, never over HTTP', async () => {
    for (const [method, path] of [['GET', '/api/internal/mcp-servers/agents/x/tools'], ['POST', `/api/internal/mcp-servers/${config.id}/call`]]) {
      const res = await server.api(method!, path!, { key: OWNER, ...(method === 'POST' ? { body: { agentId: 'x', tool: 'echo', arguments: {} } } : {}) });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.code, 'ROUTE_NOT_FOUND');
    }
  });
});
