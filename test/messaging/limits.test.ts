// The loop limits on every way in, not only svc_send_message: an agent named as the sender without its
// session (REST invoke, WebSocket agent_invoke, POST /api/mcp/send-message) is counted per agent within
// the window, while a person or script is not counted; and the depth of a chain follows the sender
// wherever it sends from, old threads included.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { namedAgent, sessionToken, startMessagingServer, type MessagingServer } from './support.js';

describe('messaging: the loop limits on every path', () => {
  let h: MessagingServer;
  let t: Tenant;
  const agents: Record<string, { id: string; name: string }> = {};
  const clients: Client[] = [];
  const limits = (body: Record<string, unknown>) => h.server.api('PUT', '/api/settings/messaging', { key: t.owner, body });
  const invoke = (key: string, to: string, body: Record<string, unknown>) => h.server.api('POST', `/api/agents/${agents[to]!.id}/invoke`, { key, body });
  const sendMessage = (from: string, to: string, message: string, extra: Record<string, unknown> = {}) =>
    h.server.api('POST', '/api/mcp/send-message', { key: t.operator, body: { from_agent: from, to_agent: to, message, ...extra } });
  const wsInvoke = async (from: string, to: string, content: string, thread: string) => {
    const socket = await h.server.ws({ key: t.operator });
    try {
      socket.send({ type: 'agent_invoke', fromAgentId: agents[from]!.id, toAgentId: agents[to]!.id, content, thread });
      return await socket.next((m) => m.type === 'agent_invoked' || m.type === 'error', 60_000);
    } finally {
      await socket.close();
    }
  };

  before(async () => {
    h = await startMessagingServer();
    t = await registerTenant(h.server, 'limits-org', 'pro');
    for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina', 'hal', 'ivy']) agents[name] = await namedAgent(h.server, t.operator, name);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await h?.close();
  });

  it('counts an agent sending without its session, across REST, the WebSocket and the MCP HTTP API', async () => {
    assert.equal((await limits({ minSpacingMs: 0, maxMessagesPerSession: 2, windowSeconds: 3600 })).status, 200);
    for (const n of [1, 2]) assert.equal((await invoke(t.operator, 'bob', { content: `from carol ${n}`, fromAgentId: 'carol', thread: 'carol-bob' })).status, 201);
    const third = await invoke(t.operator, 'bob', { content: 'from carol 3', fromAgentId: 'carol', thread: 'carol-bob' });
    assert.equal(third.status, 429, third.text);
    assert.equal(third.body.code, 'MESSAGE_LIMIT');
    assert.deepEqual(third.body.details, { limit: 'messages', max: 2 });
    assert.match(third.body.error, /^agent carol \(sending without a session\) has sent 2 messages in the last 3600 s, the most one sender may send in that time \(2\)$/);
    // The same sender on another path is the same count.
    const otherPath = await sendMessage('carol', 'bob', 'from carol 4', { thread: 'carol-bob' });
    assert.equal(otherPath.status, 429);

    for (const n of [1, 2]) assert.equal((await wsInvoke('dave', 'bob', `from dave ${n}`, 'dave-bob')).type, 'agent_invoked');
    const refused = await wsInvoke('dave', 'bob', 'from dave 3', 'dave-bob');
    assert.equal(refused.type, 'error');
    assert.equal(refused.code, 'MESSAGE_LIMIT');
    assert.match(refused.message, /agent dave \(sending without a session\) has sent 2 messages/);

    for (const n of [1, 2]) assert.equal((await sendMessage('erin', 'bob', `from erin ${n}`, { thread: 'erin-bob' })).status, 200);
    const waited = await sendMessage('erin', 'bob', 'from erin 3', { thread: 'erin-bob' });
    assert.equal(waited.status, 429);
    assert.match(waited.body.error, /agent erin \(sending without a session\) has sent 2 messages/);

    const history = await h.server.api('GET', `/api/agents/${agents.bob!.id}/messages?limit=200`, { key: t.viewer });
    const fromCarol = history.body.messages.filter((m: any) => m.from === agents.carol!.id);
    assert.deepEqual(fromCarol.map((m: any) => m.content).sort(), ['from carol 1', 'from carol 2'], 'refused messages are not stored');
  });

  it('does not count a person\'s or script\'s sends: loops run between agents', async () => {
    assert.equal((await limits({ maxMessagesPerSession: 1, maxTargetsPerSession: 1, minSpacingMs: 600_000, windowSeconds: 3600 })).status, 200);
    try {
      for (const [to, content] of [['alice', 'hello alice'], ['bob', 'hello bob'], ['carol', 'hello carol'], ['alice', 'again alice']]) {
        const sent = await invoke(t.operator, to!, { content });
        assert.equal(sent.status, 201, `${content}: ${sent.text}`);
      }
    } finally {
      await limits({ maxMessagesPerSession: 10, maxTargetsPerSession: 2, minSpacingMs: 0 });
    }
  });

  it('holds the depth of a chain on every path, and for a thread opened earlier at a shallower depth', async () => {
    assert.equal((await limits({ maxDepth: 2, maxMessagesPerSession: 10, maxTargetsPerSession: 10, minSpacingMs: 0 })).status, 200);
    // An old thread: frank → gina, opened at hop 1 (frank was in no chain then).
    assert.equal((await invoke(t.operator, 'gina', { content: 'an old conversation', fromAgentId: 'frank', thread: 'frank-gina' })).status, 201);
    // A chain: a person → hal (hop 1), hal's session → frank (hop 2).
    const toHal = await invoke(t.owner, 'hal', { content: 'start a chain' });
    assert.equal(toHal.status, 201, toHal.text);
    const halClient = await mcpClient(h.server, await sessionToken(h.server, t.operator, agents.hal!.id, toHal.body.sessionId));
    clients.push(halClient);
    const toFrank = await callTool(halClient, 'svc_send_message', { to_agent: 'frank', message: 'pass it on' });
    assert.equal(toFrank.isError, false, toFrank.text);
    const frankClient = await mcpClient(h.server, await sessionToken(h.server, t.operator, agents.frank!.id, toFrank.value.sessionId));
    clients.push(frankClient);

    // From frank's hop-2 session, the old hop-1 thread is hop 3, not hop 1 again.
    const oldThread = await callTool(frankClient, 'svc_send_message', { to_agent: 'gina', message: 'deeper', thread: 'frank-gina' });
    assert.equal(oldThread.isError, true);
    assert.match(oldThread.text, /this message would be hop 3 of a chain of agent-to-agent messages; chains may be at most 2 deep/);
    // Naming frank as the sender without its session: frank is as deep as its deepest live session.
    const byRest = await sendMessage('frank', 'ivy', 'deeper');
    assert.equal(byRest.status, 429, byRest.text);
    assert.deepEqual(byRest.body.details, { limit: 'depth', max: 2 });
    assert.match(byRest.body.error, /hop 3 of a chain/);
    assert.equal((await invoke(t.operator, 'ivy', { content: 'deeper', fromAgentId: 'frank' })).status, 429);
    const byWs = await wsInvoke('frank', 'ivy', 'deeper', 'frank-ivy');
    assert.equal(byWs.code, 'MESSAGE_LIMIT');
    assert.match(byWs.message, /hop 3 of a chain/);
    // A person starts a chain of their own.
    assert.equal((await invoke(t.owner, 'ivy', { content: 'hello ivy' })).status, 201);
  });
});
