// Memory refuses callers without the right to act — no key, a bad key, a foreign web page — on every
// REST route and MCP tool, from a caller that is not the local owner, and nothing changes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAgent } from '../agents/support.js';
import type { TestServer } from '../helpers/server.js';
import { assertRefusedWithoutRights, LOCKED_SERVER_ENV, toolCall } from '../helpers/refusals.js';
import { saveMemory, startMemoryServer } from './support.js';

const OWNER = 'rk_memory_guarded_owner_0123456789abcdef';

describe('memory: callers without the right to act', () => {
  let server: TestServer;
  let agent: any;
  before(async () => {
    server = await startMemoryServer({ env: LOCKED_SERVER_ENV(OWNER) });
    agent = await createAgent(server, OWNER, { name: 'guarded' });
    await saveMemory(server, OWNER, agent.id, 'kept', 'the original');
  });
  after(() => server.cleanup());

  it('refuses no key, a bad key and a foreign origin on every route and tool, and changes nothing', async () => {
    await assertRefusedWithoutRights(server, OWNER, [
      { method: 'POST', path: '/api/mcp/save-memory', body: { agentId: agent.id, key: 'kept', content: 'overwritten' } },
      { method: 'POST', path: '/api/mcp/recall-memory', body: { agentId: agent.id, key: 'kept' } },
      { method: 'GET', path: `/api/agents/${agent.id}/memories` },
      { method: 'DELETE', path: `/api/agents/${agent.id}/memories/kept` },
      { method: 'GET', path: `/api/agents/${agent.id}/memory-settings` },
      { method: 'PUT', path: `/api/agents/${agent.id}/memory-settings`, body: { contextMemories: 0 } },
      { method: 'GET', path: '/api/settings/memory' },
      { method: 'PUT', path: '/api/settings/memory', body: { contextMemories: 0 } },
      toolCall('svc_save_memory', { key: 'kept', content: 'overwritten' }),
      toolCall('svc_recall_memory', { key: 'kept' }),
      toolCall('svc_delete_memory', { key: 'kept' }),
      toolCall('svc_library_write', { name: 'notes', content: 'x' }),
    ]);
    const kept = await server.api('POST', '/api/mcp/recall-memory', { key: OWNER, body: { agentId: agent.id, key: 'kept' } });
    assert.equal(kept.status, 200, kept.text);
    assert.equal(kept.body.memory.content, 'the original');
    assert.equal((await server.api('GET', '/api/settings/memory', { key: OWNER })).body.contextMemories, 5);
    assert.equal((await server.api('GET', `/api/agents/${agent.id}/memory-settings`, { key: OWNER })).body.contextMemories, null);
  });

  it('serves its internal routes to extensions only, never over HTTP', async () => {
    for (const [method, path] of [['GET', `/api/internal/memory/agents/${agent.id}/context`], ['GET', '/api/internal/memory/unsent'], ['PUT', `/api/internal/memory/agents/${agent.id}/memories/kept/txid`]]) {
      const res = await server.api(method!, path!, { key: OWNER, ...(method === 'PUT' ? { body: { txid: 'x' } } : {}) });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.code, 'ROUTE_NOT_FOUND');
    }
  });
});
