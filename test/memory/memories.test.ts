import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { agentToken, callAs, callTool, createAgent, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import type { TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { saveMemory, startMemoryServer } from './support.js';

describe('memory: save, recall and delete through MCP, the MCP HTTP API and REST', () => {
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  let agentA: any;
  let otherA: any;
  let agentB: any;
  let client: Client;
  before(async () => {
    server = await startMemoryServer();
    a = await registerTenant(server, 'memory-org-a');
    b = await registerTenant(server, 'memory-org-b');
    agentA = await createAgent(server, a.operator, { name: 'rememberer' });
    otherA = await createAgent(server, a.operator, { name: 'neighbour' });
    agentB = await createAgent(server, b.operator, { name: 'stranger' });
    client = await mcpClient(server, await agentToken(server, a.operator, agentA.id));
  });
  after(async () => {
    await client?.close();
    await server.cleanup();
  });

  it('saves, upserts, recalls by key and deletes through the MCP SDK client', async () => {
    const saved = await callTool(client, 'svc_save_memory', { key: 'favourite-colour', content: 'The owner likes teal.' });
    assert.equal(saved.isError, false, saved.text);
    assert.equal(saved.value.created, true);
    const again = await callTool(client, 'svc_save_memory', { key: 'favourite-colour', content: 'The owner now prefers crimson.' });
    assert.equal(again.value.created, false);

    const recalled = await callTool(client, 'svc_recall_memory', { key: 'favourite-colour' });
    assert.equal(recalled.isError, false, recalled.text);
    assert.equal(recalled.value.memory.content, 'The owner now prefers crimson.');
    assert.equal(recalled.value.memory.txid, null);
    const second = await callTool(client, 'svc_recall_memory', { key: 'favourite-colour' });
    assert.equal(second.value.memory.accessCount, 1, 'the first recall was counted');

    const deleted = await callTool(client, 'svc_delete_memory', { key: 'favourite-colour' });
    assert.deepEqual(deleted.value, { deleted: 'favourite-colour' });
    const gone = await callTool(client, 'svc_recall_memory', { key: 'favourite-colour' });
    assert.equal(gone.isError, true);
    assert.match(gone.text, /memory "favourite-colour" not found/);
    const deletedAgain = await callTool(client, 'svc_delete_memory', { key: 'favourite-colour' });
    assert.equal(deletedAgain.isError, true);
  });

  it('ranks a keyword search by how well the words match, exact words only', async () => {
    await callTool(client, 'svc_save_memory', { key: 'deploy', content: 'Deploy the billing service with the blue-green script; billing needs the VPN.' });
    await callTool(client, 'svc_save_memory', { key: 'lunch', content: 'The team eats lunch at noon on Fridays.' });
    await callTool(client, 'svc_save_memory', { key: 'billing-owner', content: 'Billing questions go to Dana.' });
    await callTool(client, 'svc_save_memory', { key: 'Unicode', content: 'Café opening hours: ÉTÉ schedule.' });

    const billing = await callTool(client, 'svc_recall_memory', { query: 'billing deploy' });
    assert.equal(billing.isError, false, billing.text);
    assert.deepEqual(billing.value.memories.map((m: any) => m.key), ['deploy', 'billing-owner'], 'both words beat one word');
    assert.ok(billing.value.memories[0].score > billing.value.memories[1].score);
    const lunch = await callTool(client, 'svc_recall_memory', { query: 'When is LUNCH?' });
    assert.deepEqual(lunch.value.memories.map((m: any) => m.key), ['lunch'], 'case and punctuation do not matter');
    const accents = await callTool(client, 'svc_recall_memory', { query: 'café été' });
    assert.deepEqual(accents.value.memories.map((m: any) => m.key), ['Unicode']);
    const prefix = await callTool(client, 'svc_recall_memory', { query: 'bill' });
    assert.deepEqual(prefix.value.memories, [], 'no prefix matches');
    const stopWords = await callTool(client, 'svc_recall_memory', { query: 'the of and' });
    assert.deepEqual(stopWords.value.memories, []);
    const byKeyWord = await callTool(client, 'svc_recall_memory', { query: 'owner' });
    assert.deepEqual(byKeyWord.value.memories.map((m: any) => m.key), ['billing-owner'], 'a key\'s words are found too');
    const latest = await callTool(client, 'svc_recall_memory', {});
    assert.equal(latest.value.memories[0].key, 'Unicode', 'without key or query: the latest first');
  });

  it('serves the seed\'s MCP HTTP API with the agent in the body and the tenant from the key', async () => {
    const first = await server.api('POST', '/api/mcp/save-memory', { key: a.operator, body: { agentId: agentA.id, key: 'http-note', content: 'Saved over HTTP about kangaroos.' } });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.created, true);
    const update = await server.api('POST', '/api/mcp/save-memory', { key: a.operator, body: { agentId: agentA.id, key: 'http-note', content: 'Saved over HTTP about wombats.' } });
    assert.equal(update.status, 200);
    const byKey = await server.api('POST', '/api/mcp/recall-memory', { key: a.operator, body: { agentId: agentA.id, key: 'http-note' } });
    assert.equal(byKey.body.memory.content, 'Saved over HTTP about wombats.');
    const byQuery = await server.api('POST', '/api/mcp/recall-memory', { key: a.operator, body: { agentId: agentA.id, query: 'wombats' } });
    assert.deepEqual(byQuery.body.memories.map((m: any) => m.key), ['http-note']);
    const viaTool = await callTool(client, 'svc_recall_memory', { key: 'http-note' });
    assert.equal(viaTool.value.memory.content, 'Saved over HTTP about wombats.', 'the same memories as the tools');
    const missing = await server.api('POST', '/api/mcp/recall-memory', { key: a.operator, body: { agentId: agentA.id, key: 'nothing-here' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'NOT_FOUND');
    const viewer = await server.api('POST', '/api/mcp/save-memory', { key: a.viewer, body: { agentId: agentA.id, key: 'x', content: 'y' } });
    assert.equal(viewer.status, 403);
  });

  it('lists, searches, pages and deletes an agent\'s memories for people', async () => {
    const list = await server.api('GET', `/api/agents/${agentA.id}/memories?limit=2`, { key: a.viewer });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.memories.length, 2);
    assert.equal(list.body.hasMore, true);
    const next = await server.api('GET', `/api/agents/${agentA.id}/memories?limit=2&offset=2`, { key: a.viewer });
    assert.ok(next.body.memories.every((m: any) => !list.body.memories.some((n: any) => n.key === m.key)));
    const search = await server.api('GET', `/api/agents/${agentA.id}/memories?search=billing`, { key: a.viewer });
    assert.deepEqual(search.body.memories.map((m: any) => m.key).sort(), ['billing-owner', 'deploy']);
    assert.equal((await server.api('GET', `/api/agents/${agentA.id}/memories?limit=0`, { key: a.viewer })).status, 400);

    await saveMemory(server, a.operator, agentA.id, 'path/with spaces', 'slashes survive');
    const removed = await server.api('DELETE', `/api/agents/${agentA.id}/memories/${encodeURIComponent('path/with spaces')}`, { key: a.operator });
    assert.equal(removed.status, 204, removed.text);
    assert.equal((await server.api('DELETE', `/api/agents/${agentA.id}/memories/${encodeURIComponent('path/with spaces')}`, { key: a.operator })).status, 404);
    assert.equal((await server.api('DELETE', `/api/agents/${agentA.id}/memories/lunch`, { key: a.viewer })).status, 403);
    assert.equal((await server.api('GET', `/api/agents/no-such-agent/memories`, { key: a.viewer })).status, 404);
  });

  it('keeps memories to their agent and tenant', async () => {
    const neighbour = await mcpClient(server, await agentToken(server, a.operator, otherA.id));
    const stranger = await mcpClient(server, await agentToken(server, b.operator, agentB.id));
    try {
      for (const other of [neighbour, stranger]) {
        const byKey = await callTool(other, 'svc_recall_memory', { key: 'lunch' });
        assert.equal(byKey.isError, true);
        assert.match(byKey.text, /not found/);
        const byQuery = await callTool(other, 'svc_recall_memory', { query: 'lunch billing' });
        assert.deepEqual(byQuery.value.memories, []);
        assert.equal((await callTool(other, 'svc_delete_memory', { key: 'lunch' })).isError, true);
      }
      // The same key for another agent is another memory.
      await callTool(neighbour, 'svc_save_memory', { key: 'lunch', content: 'The neighbour skips lunch.' });
      assert.equal((await callTool(client, 'svc_recall_memory', { key: 'lunch' })).value.memory.content, 'The team eats lunch at noon on Fridays.');
    } finally {
      await neighbour.close();
      await stranger.close();
    }
    for (const [method, path, body] of [
      ['GET', `/api/agents/${agentA.id}/memories`, undefined],
      ['DELETE', `/api/agents/${agentA.id}/memories/lunch`, undefined],
      ['POST', '/api/mcp/recall-memory', { agentId: agentA.id, key: 'lunch' }],
      ['POST', '/api/mcp/save-memory', { agentId: agentA.id, key: 'lunch', content: 'overwritten' }],
    ] as const) {
      const res = await server.api(method, path, { key: b.owner, body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.code, 'NOT_FOUND');
    }
    assert.equal((await callTool(client, 'svc_recall_memory', { key: 'lunch' })).value.memory.content, 'The team eats lunch at noon on Fridays.');
    const internal = await server.api('GET', `/api/internal/memory/agents/${agentA.id}/context`, { key: a.owner });
    assert.equal(internal.status, 404, 'the internal route is for extensions only');
  });

  it('erases a deleted agent\'s memories and observations, and keeps its library notes', async () => {
    const doomed = await createAgent(server, a.operator, { name: 'doomed' });
    await saveMemory(server, a.operator, doomed.id, 'last-words', 'Remember the ravens.');
    const doomedClient = await mcpClient(server, await agentToken(server, a.operator, doomed.id));
    try {
      await callTool(doomedClient, 'svc_library_write', { name: 'ravens', content: 'A note for everyone.' });
    } finally {
      await doomedClient.close();
    }
    const contextOf = async () => (await callAs(server, a.operator, 'GET', `/api/internal/memory/agents/${doomed.id}/context?limit=5`, undefined)).body.memories;
    assert.equal((await contextOf()).length, 1);
    assert.equal((await server.api('DELETE', `/api/agents/${doomed.id}`, { key: a.operator })).status, 204);
    await waitFor('the deleted agent\'s memories to be erased', async () => ((await contextOf()).length === 0 ? true : undefined));
    const read = await callTool(client, 'svc_library_read', { name: 'ravens' });
    assert.equal(read.value.content, 'A note for everyone.');
  });

  it('refuses bad input with clear errors and loses nothing', async () => {
    const big = await callTool(client, 'svc_save_memory', { key: 'big', content: 'x'.repeat(65_537) });
    assert.equal(big.isError, true);
    assert.match(big.text, /arguments\.content must NOT have more than 65536 characters/);
    const nested = await callTool(client, 'svc_save_memory', { key: 'nested', content: deep(10) });
    assert.equal(nested.isError, true);
    assert.match(nested.text, /arguments\.content must be string/);
    await assert.rejects(callTool(client, 'svc_save_memory', { key: 'nested', content: deep(200) }), /nested deeper than 64 levels/);
    const noKey = await callTool(client, 'svc_save_memory', { content: 'no key' });
    assert.match(noKey.text, /arguments\.key is required/);
    const longKey = await callTool(client, 'svc_save_memory', { key: 'k'.repeat(201), content: 'c' });
    assert.match(longKey.text, /arguments\.key must NOT have more than 200 characters/);
    const extra = await callTool(client, 'svc_recall_memory', { key: 'lunch', sql: 'DROP TABLE memories' });
    assert.match(extra.text, /arguments\.sql is not allowed/);

    const httpBig = await server.api('POST', '/api/mcp/save-memory', { key: a.operator, body: { agentId: agentA.id, key: 'big', content: 'x'.repeat(65_537) } });
    assert.equal(httpBig.status, 400);
    assert.equal(httpBig.body.code, 'VALIDATION_ERROR');
    assert.match(httpBig.body.error, /body\.content must NOT have more than 65536 characters/);
    const httpNested = await server.api('POST', '/api/mcp/save-memory', { key: a.operator, body: { agentId: agentA.id, key: 'nested', content: deep(10) } });
    assert.equal(httpNested.status, 400);
    assert.match(httpNested.body.error, /body\.content must be string/);
    const httpDeep = await server.api('POST', '/api/mcp/save-memory', { key: a.operator, body: { agentId: agentA.id, key: 'nested', content: deep(500) } });
    assert.equal(httpDeep.status, 400);
    assert.match(httpDeep.body.error, /nested deeper than 64 levels/);
    const noAgent = await server.api('POST', '/api/mcp/recall-memory', { key: a.operator, body: { key: 'lunch' } });
    assert.equal(noAgent.status, 400);
    assert.match(noAgent.body.error, /body\.agentId is required/);
    const malformed = await server.api('POST', '/api/mcp/save-memory', { key: a.operator, raw: '{"agentId": ' });
    assert.equal(malformed.status, 400);
    const tooLarge = await server.api('POST', '/api/mcp/save-memory', { key: a.operator, body: { agentId: agentA.id, key: 'huge', content: 'x'.repeat(2 * 1024 * 1024) } });
    assert.equal(tooLarge.status, 413);
    const longSearch = await server.api('GET', `/api/agents/${agentA.id}/memories?search=${'w'.repeat(2001)}`, { key: a.viewer });
    assert.equal(longSearch.status, 400);

    // An API key is no agent: memories need the agent's own token.
    const byKey = await mcpClient(server, a.operator);
    try {
      const refused = await callTool(byKey, 'svc_save_memory', { key: 'k', content: 'c' });
      assert.equal(refused.isError, true);
      assert.match(refused.text, /agent's MCP token/);
    } finally {
      await byKey.close();
    }
    assert.equal((await callTool(client, 'svc_recall_memory', { key: 'lunch' })).value.memory.content, 'The team eats lunch at noon on Fridays.');
  });
});

function deep(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}
