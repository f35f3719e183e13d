import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerTenant, type Tenant } from '../agents/support.js';
import { namedAgent, startMessagingServer, type MessagingServer } from './support.js';

describe('messaging: the MCP HTTP API, invocation threads and the limits setting', () => {
  let h: MessagingServer;
  let t: Tenant;
  let other: Tenant;
  let alice: { id: string; name: string };
  let bob: { id: string; name: string };
  before(async () => {
    h = await startMessagingServer();
    t = await registerTenant(h.server, 'mcp-http-org');
    other = await registerTenant(h.server, 'mcp-http-other');
    alice = await namedAgent(h.server, t.operator, 'alice');
    bob = await namedAgent(h.server, t.operator, 'bob');
    // These tests send several messages a second; the spacing has tests of its own.
    assert.equal((await h.server.api('PUT', '/api/settings/messaging', { key: t.owner, body: { minSpacingMs: 0 } })).status, 200);
  });
  after(() => h?.close());

  it('POST /api/mcp/send-message waits for the reply; GET /api/mcp/list-agents lists the tenant', async () => {
    const sent = await h.server.api('POST', '/api/mcp/send-message', { key: t.operator, body: { from_agent: 'alice', to_agent: 'bob', message: 'status?' } });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.reply, 'bob heard: status?');
    const again = await h.server.api('POST', '/api/mcp/send-message', { key: t.operator, body: { from_agent: alice.id, to_agent: 'bob', message: 'more?', thread: sent.body.thread } });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.sessionId, sent.body.sessionId);

    const listed = await h.server.api('GET', '/api/mcp/list-agents', { key: t.viewer });
    assert.equal(listed.status, 200);
    assert.equal(listed.body.total, 2);
    assert.deepEqual(listed.body.agents.map((a: any) => a.name).sort(), ['alice', 'bob']);
    assert.deepEqual(Object.keys(listed.body.agents[0]).sort(), ['description', 'id', 'name', 'wallet']);
    assert.equal((await h.server.api('GET', '/api/mcp/list-agents', { key: other.viewer })).body.total, 0);
  });

  it('refuses bad send-message bodies, viewers and other tenants', async () => {
    for (const body of [{}, { from_agent: 'alice', to_agent: 'bob' }, { from_agent: 'alice', message: 'x' }, { to_agent: 'bob', message: 'x' }, { from_agent: 'alice', to_agent: 'bob', message: 'x', thread: 'a b' }, { from_agent: 'alice', to_agent: 'bob', message: 7 }, [1, 2]]) {
      const res = await h.server.api('POST', '/api/mcp/send-message', { key: t.operator, body });
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    const nested = JSON.stringify({ from_agent: 'alice', to_agent: 'bob', message: 'x', deep: JSON.parse('['.repeat(500) + ']'.repeat(500)) });
    assert.equal((await h.server.api('POST', '/api/mcp/send-message', { key: t.operator, raw: nested, headers: { 'content-type': 'application/json' } })).status, 400);
    assert.equal((await h.server.api('POST', '/api/mcp/send-message', { key: t.viewer, body: { from_agent: 'alice', to_agent: 'bob', message: 'x' } })).status, 403);
    const badKey = await h.server.api('POST', '/api/mcp/send-message', { key: 'roost_not-a-key', body: { from_agent: 'alice', to_agent: 'bob', message: 'x' } });
    assert.ok([401, 403].includes(badKey.status), badKey.text);
    const cross = await h.server.api('POST', '/api/mcp/send-message', { key: other.operator, body: { from_agent: 'alice', to_agent: 'bob', message: 'x' } });
    assert.equal(cross.status, 404);
    assert.match(cross.body.error, /agent bob not found/);
  });

  it('invocation over REST and the WebSocket share threads: the second continues the session', async () => {
    const first = await h.server.api('POST', `/api/agents/${bob.id}/invoke`, { key: t.operator, body: { content: 'start here', fromAgentId: alice.id, thread: 'review-7' } });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.thread, 'review-7');
    assert.equal(first.body.session.agentId, bob.id);
    const socket = await h.server.ws({ key: t.operator });
    try {
      socket.send({ type: 'agent_invoke', fromAgentId: alice.id, toAgentId: 'bob', content: 'and go on', thread: 'review-7' });
      const done = await socket.next((m) => m.type === 'agent_invoked' || m.type === 'error');
      assert.equal(done.type, 'agent_invoked', JSON.stringify(done));
      assert.equal(done.sessionId, first.body.sessionId);
      assert.equal(done.thread, 'review-7');
      socket.send({ type: 'agent_invoke', fromAgentId: bob.id, toAgentId: alice.id, content: 'wrong way', thread: 'review-7' });
      assert.match((await socket.next((m) => m.type === 'error')).message, /thread review-7 is a conversation with agent/);
    } finally {
      await socket.close();
    }
    const person = await h.server.api('POST', `/api/agents/${bob.id}/invoke`, { key: t.operator, body: { content: 'x', thread: 'review-7' } });
    assert.equal(person.status, 409);
    assert.match(person.body.error, /belongs to another sender/);
  });

  it('GET and PUT /api/settings/messaging: owner only, validated, per tenant', async () => {
    const initial = await h.server.api('GET', '/api/settings/messaging', { key: other.viewer });
    assert.deepEqual(initial.body, { maxMessagesPerSession: 5, maxTargetsPerSession: 2, minSpacingMs: 3000, maxDepth: 3, replyTimeoutSeconds: 120, windowSeconds: 60 });
    assert.equal((await h.server.api('PUT', '/api/settings/messaging', { key: other.operator, body: { maxDepth: 2 } })).status, 403);
    for (const body of [{}, { maxDepth: 0 }, { maxDepth: 2.5 }, { minSpacingMs: -1 }, { maxMessagesPerSession: '5' }, { windowSeconds: 0 }, { windowSeconds: 86401 }, { other: 1 }]) {
      assert.equal((await h.server.api('PUT', '/api/settings/messaging', { key: t.owner, body })).status, 400, JSON.stringify(body));
    }
    const changed = await h.server.api('PUT', '/api/settings/messaging', { key: other.owner, body: { maxDepth: 2 } });
    assert.equal(changed.body.maxDepth, 2);
    assert.equal(changed.body.maxMessagesPerSession, 5);
    assert.equal((await h.server.api('GET', '/api/settings/messaging', { key: t.viewer })).body.maxDepth, 3);
  });
});
