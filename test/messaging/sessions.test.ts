// Agents messaging each other from their own sessions, as their models decide: the fake Anthropic API
// is scripted to call svc_send_message when a message says "ASK <agent>: <question>", through the
// session's runner and /mcp like any tool. And threads that outlive their recipient's session: a
// stopped session is replaced by one that carries the conversation, a timed-out one is resumed.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { FIXTURES, registerTenant, type Tenant } from '../agents/support.js';
import type { AnthropicReply } from '../fakes/anthropic.js';
import type { RecordedRequest } from '../fakes/provider-http.js';
import { startTestServer } from '../helpers/server.js';
import { extensionDb } from '../helpers/stored.js';
import { waitFor } from '../helpers/wait.js';
import { lastUserText, namedAgent, speakerOf, startMessagingServer, textOf, type MessagingServer } from './support.js';

/** Echoes like the other suites; asks another agent when told to, and relays what the tool answered. */
function script(req: RecordedRequest): AnthropicReply {
  const last = req.body.messages.at(-1);
  const result = Array.isArray(last.content) ? last.content.find((c: any) => c.type === 'tool_result') : undefined;
  if (result) {
    const text = textOf(result.content);
    try {
      return { text: `${speakerOf(req)} relays: ${JSON.parse(text).reply}` };
    } catch {
      return { text: `${speakerOf(req)} was refused: ${text}` };
    }
  }
  const ask = /^ASK ([\w-]+): (.+)$/s.exec(lastUserText(req));
  if (ask) return { toolUses: [{ name: 'svc_send_message', input: { to_agent: ask[1], message: ask[2] } }] };
  return { text: `${speakerOf(req)} heard: ${lastUserText(req)}` };
}

describe('messaging: from sessions, and threads that outlive their session', () => {
  let h: MessagingServer;
  let t: Tenant;
  let dataDir: string;
  const agents: Record<string, { id: string; name: string }> = {};
  const limits = (body: Record<string, unknown>) => h.server.api('PUT', '/api/settings/messaging', { key: t.owner, body });
  const send = (from: string, to: string, message: string, thread: string) =>
    h.server.api('POST', '/api/mcp/send-message', { key: t.operator, body: { from_agent: from, to_agent: to, message, thread } });
  const lastAssistant = async (sessionId: string, pattern: RegExp) =>
    waitFor(`session ${sessionId} to answer ${pattern}`, async () => {
      const res = await h.server.api('GET', `/api/sessions/${sessionId}/messages?limit=200`, { key: t.viewer });
      const text = res.body.messages.filter((m: any) => m.role === 'assistant').at(-1)?.content;
      return typeof text === 'string' && pattern.test(text) ? text : undefined;
    }, 60_000);

  before(async () => {
    h = await startMessagingServer();
    h.anthropic.setScript(script);
    dataDir = h.server.dataDir;
    t = await registerTenant(h.server, 'sessions-messaging-org', 'pro');
    for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank']) agents[name] = await namedAgent(h.server, t.operator, name);
    assert.equal((await limits({ minSpacingMs: 0, maxMessagesPerSession: 10 })).status, 200);
  });
  after(async () => {
    // The server may have been restarted on the same data dir: stop whichever runs now.
    await h?.server.stop();
    await h?.anthropic.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a session\'s model calls svc_send_message itself, gets the reply, and is held to its session\'s limits', async () => {
    assert.equal((await limits({ maxMessagesPerSession: 1 })).status, 200);
    const started = await h.server.api('POST', '/api/sessions', { key: t.operator, body: { agentId: agents.alice!.id, initialPrompt: 'ASK bob: what is 2+2?' } });
    assert.equal(started.status, 201, started.text);
    const alice = started.body.id;
    await lastAssistant(alice, /^alice relays: bob heard: what is 2\+2\?$/);

    const history = await h.server.api('GET', `/api/agents/${agents.bob!.id}/messages`, { key: t.viewer });
    const [reply, asked] = history.body.messages;
    assert.deepEqual([asked.from, asked.to, asked.content], [agents.alice!.id, agents.bob!.id, 'what is 2+2?']);
    assert.deepEqual([reply.from, reply.to, reply.content], [agents.bob!.id, agents.alice!.id, 'bob heard: what is 2+2?']);
    assert.notEqual(asked.sessionId, alice, 'bob answered in a session of his own');
    const bobSession = await h.server.api('GET', `/api/sessions/${asked.sessionId}`, { key: t.viewer });
    assert.deepEqual([bobSession.body.agentId, bobSession.body.source], [agents.bob!.id, 'agent']);

    // The tenant allows one message a session: alice's session asking again is refused, and her model is told why.
    assert.equal((await h.server.api('POST', `/api/sessions/${alice}/messages`, { key: t.operator, body: { content: 'ASK carol: are you there?' } })).status, 202);
    await lastAssistant(alice, new RegExp(`^alice was refused: session ${alice} has sent 1 messages, the most one session may send \\(1\\)$`));
    assert.equal((await limits({ maxMessagesPerSession: 10 })).status, 200);
  });

  it('continues a thread whose recipient session was stopped in a new session that carries the conversation', async () => {
    const first = await send('carol', 'dave', 'remember the word kiwi', 'stopped-thread');
    assert.equal(first.status, 200, first.text);
    const old = first.body.sessionId;
    assert.equal((await h.server.api('POST', `/api/sessions/${old}/stop`, { key: t.operator })).status, 200);

    const second = await send('carol', 'dave', 'what was the word?', 'stopped-thread');
    assert.equal(second.status, 200, second.text);
    assert.notEqual(second.body.sessionId, old);
    assert.equal(second.body.thread, 'stopped-thread');
    // dave's new session was told what was said before the new message.
    const asked = h.anthropic.requests.filter((r) => r.path === '/v1/messages' && speakerOf(r) === 'dave').at(-1)!;
    const prompt = lastUserText(asked);
    assert.match(prompt, /^This continues an earlier conversation, whose session ended\. What was said in it:/);
    assert.match(prompt, /user: remember the word kiwi\n\nyou: dave heard: remember the word kiwi/);
    assert.match(prompt, /The new message:\n\nwhat was the word\?$/);
    const renewed = await h.server.api('GET', `/api/sessions/${second.body.sessionId}`, { key: t.viewer });
    assert.deepEqual([renewed.body.agentId, renewed.body.source], [agents.dave!.id, 'agent']);

    // From there on the thread is the new session's.
    const third = await send('carol', 'dave', 'thanks', 'stopped-thread');
    assert.equal(third.status, 200, third.text);
    assert.equal(third.body.sessionId, second.body.sessionId);
    assert.equal(third.body.reply, 'dave heard: thanks');
    const stored = (await h.server.api('GET', `/api/agents/${agents.dave!.id}/messages`, { key: t.viewer })).body.messages.filter((m: any) => m.thread === 'stopped-thread');
    assert.deepEqual(stored.reverse().map((m: any) => m.sessionId), [old, old, second.body.sessionId, second.body.sessionId, second.body.sessionId, second.body.sessionId]);
  });

  it('resumes a thread\'s session that timed out, and the conversation goes on in it', async () => {
    const first = await send('erin', 'frank', 'first', 'timed-out-thread');
    assert.equal(first.status, 200, first.text);
    const session = first.body.sessionId;
    // The session times out while the server is down (its 30 minutes are not waited for here).
    await h.server.stop();
    const db = extensionDb(h.server, 'sessions');
    try {
      await db('sessions').where({ id: session }).update({ status: 'timeout', status_code: 'SESSION_TIMEOUT', status_reason: 'the session ran out of time', timeout_at: null, ended_at: new Date().toISOString() });
    } finally {
      await db.destroy();
    }
    h.server = await startTestServer({ dataDir, env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: h.anthropic.url, ROOST_EXTENSION_DIRS: FIXTURES } });
    assert.equal((await h.server.api('GET', `/api/sessions/${session}`, { key: t.viewer })).body.status, 'timeout');

    const second = await send('erin', 'frank', 'second', 'timed-out-thread');
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.sessionId, session, 'the same session, resumed');
    assert.equal(second.body.reply, 'frank heard: second');
    const events = (await h.server.api('GET', `/api/sessions/${session}/events?limit=1000`, { key: t.viewer })).body.events;
    assert.ok(events.some((e: any) => e.type === 'resume' && e.from === 'timeout'), JSON.stringify(events.map((e: any) => e.type)));
  });
});
