import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { lastUserText, namedAgent, sessionOf, sessionToken, speakerOf, startMessagingServer, type MessagingServer } from './support.js';

describe('messaging: agents exchanging threaded messages through svc_send_message', () => {
  let h: MessagingServer;
  let t: Tenant;
  let other: Tenant;
  const agents: Record<string, { id: string; name: string }> = {};
  const clients: Client[] = [];
  /** An MCP client speaking as `agent` from a fresh session of its own. */
  const clientFor = async (agent: string, tenant = t) => {
    const sessionId = await sessionOf(h.server, tenant.operator, agents[agent]!.id);
    const client = await mcpClient(h.server, await sessionToken(h.server, tenant.operator, agents[agent]!.id, sessionId));
    clients.push(client);
    return { client, sessionId };
  };
  const limits = (key: string, body: Record<string, unknown>) => h.server.api('PUT', '/api/settings/messaging', { key, body });

  before(async () => {
    h = await startMessagingServer({ slowMs: 20_000 });
    // Every thread keeps its recipient's session alive: more than the free plan's 10 at once.
    t = await registerTenant(h.server, 'messaging-org', 'pro');
    other = await registerTenant(h.server, 'messaging-other');
    for (const name of ['alice', 'bob', 'carol', 'dave']) agents[name] = await namedAgent(h.server, t.operator, name);
    agents.stranger = await namedAgent(h.server, other.operator, 'stranger');
    // Most tests send several messages from one session at once; the spacing has its own test.
    assert.equal((await limits(t.owner, { minSpacingMs: 0 })).status, 200);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await h?.close();
  });

  it('delivers, waits for the reply, and continues the same session in the thread', async () => {
    const { client, sessionId: aliceSession } = await clientFor('alice');
    const first = await callTool(client, 'svc_send_message', { to_agent: 'bob', message: 'what is 2+2?' });
    assert.equal(first.isError, false, first.text);
    assert.equal(first.value.reply, 'bob heard: what is 2+2?');
    assert.equal(first.value.to.id, agents.bob!.id);
    assert.equal(first.value.from.id, agents.alice!.id);
    assert.notEqual(first.value.sessionId, aliceSession);

    const second = await callTool(client, 'svc_send_message', { to_agent: agents.bob!.id, message: 'and 3+3?', thread: first.value.thread });
    assert.equal(second.isError, false, second.text);
    assert.equal(second.value.thread, first.value.thread);
    assert.equal(second.value.sessionId, first.value.sessionId, 'the thread continues the same recipient session');
    assert.equal(second.value.reply, 'bob heard: and 3+3?');
    // bob's model saw the whole conversation: the second request carries the first exchange.
    const bobCalls = h.anthropic.requests.filter((r) => r.path === '/v1/messages' && speakerOf(r) === 'bob' && lastUserText(r) === 'and 3+3?');
    assert.ok(JSON.stringify(bobCalls.at(-1)!.body.messages).includes('what is 2+2?'));

    const session = await h.server.api('GET', `/api/sessions/${first.value.sessionId}`, { key: t.viewer });
    assert.equal(session.body.source, 'agent');
    assert.equal(session.body.agentId, agents.bob!.id);

    const history = await h.server.api('GET', `/api/agents/${agents.bob!.id}/messages?total=true`, { key: t.viewer });
    const inThread = history.body.messages.filter((m: any) => m.thread === first.value.thread).reverse();
    assert.deepEqual(inThread.map((m: any) => [m.from, m.to, m.content]), [
      [agents.alice!.id, agents.bob!.id, 'what is 2+2?'],
      [agents.bob!.id, agents.alice!.id, 'bob heard: what is 2+2?'],
      [agents.alice!.id, agents.bob!.id, 'and 3+3?'],
      [agents.bob!.id, agents.alice!.id, 'bob heard: and 3+3?'],
    ]);
    for (const m of inThread) {
      assert.equal(m.sessionId, first.value.sessionId);
      assert.equal(m.txid, null);
    }
    assert.equal(inThread[1].id, first.value.replyId);
    const aliceHistory = await h.server.api('GET', `/api/agents/${agents.alice!.id}/messages`, { key: t.viewer });
    assert.ok(aliceHistory.body.messages.some((m: any) => m.id === second.value.replyId), 'the sender lists the reply too');
  });

  it('refuses a sixth message from one session', async () => {
    const { client } = await clientFor('carol');
    // One thread, so dave answers all five in one session: the limit counts the sender's messages.
    let thread: string | undefined;
    for (let i = 1; i <= 5; i++) {
      const sent = await callTool(client, 'svc_send_message', { to_agent: 'dave', message: `note ${i}`, ...(thread ? { thread } : {}) });
      assert.equal(sent.isError, false, sent.text);
      thread = sent.value.thread;
    }
    const sixth = await callTool(client, 'svc_send_message', { to_agent: 'dave', message: 'note 6', thread });
    assert.equal(sixth.isError, true);
    assert.match(sixth.text, /has sent 5 messages, the most one session may send \(5\)/);
    const daveHistory = await h.server.api('GET', `/api/agents/${agents.dave!.id}/messages?total=true&limit=200`, { key: t.viewer });
    assert.equal(daveHistory.body.messages.filter((m: any) => m.content === 'note 6').length, 0, 'a refused message is not stored');
  });

  it('refuses a third recipient from one session', async () => {
    const { client } = await clientFor('dave');
    assert.equal((await callTool(client, 'svc_send_message', { to_agent: 'alice', message: 'hi alice' })).isError, false);
    assert.equal((await callTool(client, 'svc_send_message', { to_agent: 'bob', message: 'hi bob' })).isError, false);
    assert.equal((await callTool(client, 'svc_send_message', { to_agent: 'alice', message: 'again alice' })).isError, false, 'a known recipient is fine');
    const third = await callTool(client, 'svc_send_message', { to_agent: 'carol', message: 'hi carol' });
    assert.equal(third.isError, true);
    assert.match(third.text, /already messages 2 agents .*one session may message at most 2/);
  });

  it('refuses a chain of agent-to-agent messages deeper than the limit', async () => {
    // alice → bob (hop 1) → carol (hop 2) → dave (hop 3) → alice (hop 4: refused).
    let { client } = await clientFor('alice');
    let hop = await callTool(client, 'svc_send_message', { to_agent: 'bob', message: 'pass it on' });
    for (const [speaker, next] of [['bob', 'carol'], ['carol', 'dave']] as const) {
      assert.equal(hop.isError, false, hop.text);
      client = await mcpClient(h.server, await sessionToken(h.server, t.operator, agents[speaker]!.id, hop.value.sessionId));
      clients.push(client);
      hop = await callTool(client, 'svc_send_message', { to_agent: next, message: 'pass it on' });
    }
    assert.equal(hop.isError, false, hop.text);
    client = await mcpClient(h.server, await sessionToken(h.server, t.operator, agents.dave!.id, hop.value.sessionId));
    clients.push(client);
    const tooDeep = await callTool(client, 'svc_send_message', { to_agent: 'alice', message: 'pass it on' });
    assert.equal(tooDeep.isError, true);
    assert.match(tooDeep.text, /hop 4 of a chain .* at most 3 deep/);
  });

  it('refuses a message sent sooner than the spacing after the last one', async () => {
    assert.equal((await limits(t.owner, { minSpacingMs: 600_000 })).status, 200);
    try {
      const { client } = await clientFor('bob');
      const one = await callTool(client, 'svc_send_message', { to_agent: 'alice', message: 'one' });
      assert.equal(one.isError, false, one.text);
      const soon = await callTool(client, 'svc_send_message', { to_agent: 'alice', message: 'two' });
      assert.equal(soon.isError, true);
      assert.match(soon.text, /at least 600000 ms apart; session .* may send again in \d+ ms/);
      // Another session of the same agent has its own spacing (continuing the thread: alice answers in the same session).
      const { client: fresh } = await clientFor('bob');
      assert.equal((await callTool(fresh, 'svc_send_message', { to_agent: 'alice', message: 'three', thread: one.value.thread })).isError, false);
    } finally {
      await limits(t.owner, { minSpacingMs: 0 });
    }
  });

  it('answers a clear timeout when the recipient does not reply in time, and keeps the message', async () => {
    assert.equal((await limits(t.owner, { replyTimeoutSeconds: 1 })).status, 200);
    try {
      const { client } = await clientFor('carol');
      const late = await callTool(client, 'svc_send_message', { to_agent: 'bob', message: 'SLOW question' });
      assert.equal(late.isError, true);
      assert.match(late.text, /bob did not answer within 1 s; the message was delivered \(thread [\w-]+, session [\w-]+\)/);
      const history = await h.server.api('GET', `/api/agents/${agents.bob!.id}/messages`, { key: t.viewer });
      assert.equal(history.body.messages[0].content, 'SLOW question');
    } finally {
      await limits(t.owner, { replyTimeoutSeconds: 120 });
    }
  });

  it('keeps tenants apart and threads to their own conversation', async () => {
    const { client } = await clientFor('alice');
    const foreign = await callTool(client, 'svc_send_message', { to_agent: agents.stranger!.id, message: 'hello?' });
    assert.equal(foreign.isError, true);
    assert.match(foreign.text, new RegExp(`agent ${agents.stranger!.id} not found`));
    assert.match((await callTool(client, 'svc_send_message', { to_agent: 'stranger', message: 'hello?' })).text, /agent stranger not found/);

    const started = await callTool(client, 'svc_send_message', { to_agent: 'bob', message: 'private', thread: 'alice-bob-private' });
    assert.equal(started.isError, false, started.text);
    const wrongTarget = await callTool(client, 'svc_send_message', { to_agent: 'carol', message: 'x', thread: 'alice-bob-private' });
    assert.match(wrongTarget.text, /thread alice-bob-private is a conversation with agent .*; use another thread/);

    // The other tenant may use the same thread name: it is another thread, with its own session.
    const { client: strangerClient } = await clientFor('stranger', other);
    agents.friend = await namedAgent(h.server, other.operator, 'friend');
    const theirs = await callTool(strangerClient, 'svc_send_message', { to_agent: 'friend', message: 'hi', thread: 'alice-bob-private' });
    assert.equal(theirs.isError, false, theirs.text);
    assert.notEqual(theirs.value.sessionId, started.value.sessionId);
    assert.equal((await h.server.api('GET', `/api/agents/${agents.bob!.id}/messages`, { key: other.owner })).status, 404);
    assert.equal((await h.server.api('GET', `/api/sessions/${started.value.sessionId}`, { key: other.owner })).status, 404);
  });

  it('refuses bad tool input and a caller that is not an agent', async () => {
    // Refused before any limit is counted: an agent's token without a session will do.
    const client = await mcpClient(h.server, await sessionToken(h.server, t.operator, agents.alice!.id, null));
    clients.push(client);
    for (const [args, pattern] of [
      [{ message: 'x' }, /to_agent/],
      [{ to_agent: 'bob' }, /message/],
      [{ to_agent: 'bob', message: '' }, /message/],
      [{ to_agent: 'bob', message: 'x'.repeat(100_001) }, /message/],
      [{ to_agent: 'bob', message: 'x', thread: '../etc' }, /thread/],
      [{ to_agent: 'bob', message: 'x', extra: true }, /extra|additional/],
      [{ to_agent: 'alice', message: 'to myself' }, /cannot message itself/],
    ] as Array<[Record<string, unknown>, RegExp]>) {
      const refused = await callTool(client, 'svc_send_message', args);
      assert.equal(refused.isError, true, JSON.stringify(args).slice(0, 80));
      assert.match(refused.text, pattern);
    }
    const person = await mcpClient(h.server, t.operator);
    clients.push(person);
    const noAgent = await callTool(person, 'svc_send_message', { to_agent: 'bob', message: 'x' });
    assert.equal(noAgent.isError, true);
    assert.match(noAgent.text, /sent by an agent/);
  });
});
