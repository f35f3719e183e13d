import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { agentToken, callAs, callTool, createAgent, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { startWebhookReceiver, type WebhookReceiver } from '../notifications/support.js';
import { configureBot, sentTo, startFakes, type Fakes } from './support.js';

const CHAT = 4242;

describe('the Telegram bridge over long polling', () => {
  let fakes: Fakes;
  let server: TestServer;
  let hook: WebhookReceiver;
  let a: Tenant;
  let b: Tenant;
  let agent: any;
  let mcp: Client;

  before(async () => {
    fakes = await startFakes('Hello from your agent.');
    hook = await startWebhookReceiver();
    server = await startTestServer({ env: fakes.env });
    a = await registerTenant(server, 'tg-a');
    b = await registerTenant(server, 'tg-b');
    agent = await createAgent(server, a.owner, { name: 'helper', model: 'claude-sonnet-5-5' });
    await createAgent(server, a.owner, { name: 'second', model: 'claude-sonnet-5-5' });
    mcp = await mcpClient(server, await agentToken(server, a.owner, agent.id));
  });
  after(async () => {
    await mcp?.close();
    await server?.cleanup();
    await hook?.close();
    await fakes?.close();
  });

  it('is configured by the owner only, with the token proved, sealed and never shown', async () => {
    const body = { botToken: fakes.telegram.token, mode: 'polling', apiRoot: fakes.telegram.url, defaultAgentId: agent.id };
    assert.equal((await server.api('PUT', '/api/bridges/telegram', { key: a.operator, body })).status, 403);
    assert.equal((await server.api('GET', '/api/bridges/telegram', { key: a.viewer })).status, 403);
    for (const [bad, message] of [
      [{ ...body, mode: 'carrier-pigeon' }, /body\.mode/],
      [{ ...body, botToken: 'not a token' }, /body\.botToken/],
      [{ ...body, apiRoot: 'ftp://x' }, /http or https/],
      [{ ...body, mode: 'webhook' }, /webhookUrl is required/],
      [{ ...body, defaultAgentId: 'no-such-agent' }, /agent no-such-agent not found/],
    ] as const) {
      const res = await server.api('PUT', '/api/bridges/telegram', { key: a.owner, body: bad });
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.error, message);
    }
    const wrongToken = await server.api('PUT', '/api/bridges/telegram', { key: a.owner, body: { ...body, botToken: '999:wrong' } });
    assert.equal(wrongToken.status, 502);
    assert.match(wrongToken.body.error, /Telegram refused getMe: 401/);
    const saved = await configureBot(server, a.owner, body);
    assert.equal(saved.configured, true);
    assert.equal(saved.botUsername, 'roost_test_bot');
    assert.deepEqual(saved.secretKeys, ['botToken']);
    assert.equal(JSON.stringify(saved).includes(fakes.telegram.token), false);
    assert.equal((await server.api('GET', '/api/bridges/telegram', { key: b.owner })).body.configured, false);
  });

  it('carries a conversation from the first message to the agent\'s reply, and keeps the chat\'s session', async () => {
    const from = fakes.telegram.sent.length;
    await fakes.telegram.push(fakes.telegram.message(CHAT, 'hello bot'));
    const reply = await sentTo(fakes.telegram, CHAT, (m) => m.text === 'Hello from your agent.', from, 30_000);
    assert.ok(reply.message_id > 0);
    const { body } = await callAs(server, a.owner, 'GET', '/api/internal/bridges/telegram/conversations');
    const chat = body.conversations.find((c: any) => c.conversationId === String(CHAT));
    assert.equal(chat.bridge, 'telegram');
    assert.equal(chat.agentId, agent.id);
    assert.ok(chat.sessionId);
    const session = await server.api('GET', `/api/sessions/${chat.sessionId}`, { key: a.owner });
    assert.equal(session.status, 200);
    const other = await callAs(server, b.owner, 'GET', '/api/internal/bridges/telegram/conversations');
    assert.deepEqual(other.body.conversations, []);
    const sent = await callAs(server, a.owner, 'POST', `/api/internal/bridges/telegram/conversations/${CHAT}/send`, { text: 'from another agent' });
    assert.equal(sent.status, 200);
    assert.match(sent.body.externalId, new RegExp(`^${CHAT}:\\d+$`));
    assert.equal((await callAs(server, b.owner, 'POST', `/api/internal/bridges/telegram/conversations/${CHAT}/send`, { text: 'x' })).status, 404);
    assert.equal((await callAs(server, a.owner, 'POST', `/api/internal/bridges/telegram/conversations/${CHAT}/send`, { text: '' })).status, 400);
  });

  it('answers /help, /status, /agent and /stop', async () => {
    const say = async (text: string, expect: RegExp) => {
      const from = fakes.telegram.sent.length;
      await fakes.telegram.push(fakes.telegram.message(CHAT, text));
      return sentTo(fakes.telegram, CHAT, (m) => expect.test(m.text), from);
    };
    await say('/help', /\/status: the chat's agent and session/);
    await say('/status@roost_test_bot', /Agent: helper[\s\S]*Session: [0-9a-f-]+ \(/);
    await say('/agent nobody', /No agent named "nobody"/);
    await say('/agent second', /Now talking to second/);
    await say('/stop', /no session to stop/);
    await say('/frobnicate', /Unknown command \/frobnicate/);
  });

  it('ignores a duplicate delivery of an update', async () => {
    const from = fakes.telegram.sent.length;
    const update = { update_id: 777_001, ...fakes.telegram.message(CHAT, '/help') };
    await fakes.telegram.push(update);
    await sentTo(fakes.telegram, CHAT, (m) => /\/help: this list/.test(m.text), from);
    // Telegram serves the same update again (below the confirmed offset): the bot receives it…
    await fakes.telegram.redeliver(777_001);
    await fakes.telegram.push(fakes.telegram.message(CHAT, '/agent'));
    await sentTo(fakes.telegram, CHAT, (m) => /^Agents: /.test(m.text), from);
    assert.equal(fakes.telegram.served.filter((id) => id === 777_001).length, 2, 'the duplicate really reached the bot');
    // …and drops it: one answer for one update (the later /agent, answered after it, shows it was seen).
    assert.equal(fakes.telegram.sent.slice(from).filter((m) => /\/help: this list/.test(m.text)).length, 1);
  });

  it('an owner question answered with a Telegram button wins and is closed on the webhook channel', async () => {
    assert.equal((await server.api('POST', '/api/notification-channels', { key: a.owner, body: { type: 'telegram', config: { chatId: String(CHAT) } } })).status, 201);
    assert.equal((await server.api('POST', '/api/notification-channels', { key: a.owner, body: { type: 'webhook', config: { url: hook.url } } })).status, 201);
    const from = fakes.telegram.sent.length;
    const asking = callTool(mcp, 'svc_ask_owner', { question: 'Ship it?', options: ['yes', 'no'], timeout: 2 });
    const shown = await sentTo(fakes.telegram, CHAT, (m) => /Ship it\?/.test(m.text), from);
    const buttons = shown.reply_markup.inline_keyboard.flat();
    assert.deepEqual(buttons.map((x: any) => x.text), ['yes', 'no']);
    await waitFor('the webhook dispatch', async () => hook.received.find((r) => r.body.kind === 'question'));
    await fakes.telegram.push({ callback_query: { id: 'cb-1', from: { id: CHAT, is_bot: false, first_name: 'Owner', username: 'owner' }, chat_instance: '1', message: { message_id: shown.message_id, date: 0, chat: { id: CHAT, type: 'private' }, text: shown.text }, data: buttons[0].callback_data } });
    const result = await asking;
    assert.equal(result.isError, false, result.text);
    assert.equal(result.value.answer, 'yes');
    assert.equal(result.value.channel, 'telegram');
    assert.equal(result.value.responder, '@owner');
    const closed = await waitFor('question_closed on the webhook', async () => hook.received.find((r) => r.body.kind === 'question_closed'));
    assert.match(closed.body.text, /Answered: "yes" \(via telegram, by @owner\)/);
    await waitFor('the answer acknowledged on Telegram', async () => fakes.telegram.callbackAnswers.find((c) => c.callback_query_id === 'cb-1' && /Answer recorded: yes/.test(c.text ?? '')));
    await waitFor('the Telegram message edited to closed', async () => fakes.telegram.edits.find((e) => e.message_id === shown.message_id && /Answered: "yes"/.test(e.text)));
    // A second press after the question closed is told so.
    await fakes.telegram.push({ callback_query: { id: 'cb-2', from: { id: CHAT, is_bot: false, first_name: 'Owner' }, chat_instance: '1', message: { message_id: shown.message_id, date: 0, chat: { id: CHAT, type: 'private' }, text: shown.text }, data: buttons[1].callback_data } });
    await waitFor('the late press refused', async () => fakes.telegram.callbackAnswers.find((c) => c.callback_query_id === 'cb-2' && /already closed/.test(c.text ?? '')));
  });

  it('an open question is answered by replying to its Telegram message', async () => {
    const from = fakes.telegram.sent.length;
    const asking = callTool(mcp, 'svc_ask_owner', { question: 'Which branch?', timeout: 2 });
    const shown = await sentTo(fakes.telegram, CHAT, (m) => /Which branch\?/.test(m.text), from);
    assert.match(shown.text, /Reply to this message to answer/);
    await fakes.telegram.push(fakes.telegram.message(CHAT, 'release-2', { reply_to_message: { message_id: shown.message_id, date: 0, chat: { id: CHAT, type: 'private' }, text: shown.text } }));
    const result = await asking;
    assert.equal(result.value.answer, 'release-2');
    assert.equal(result.value.channel, 'telegram');
    await sentTo(fakes.telegram, CHAT, (m) => m.text === 'Answer recorded: release-2', from);
    // The question's message is edited to say how it closed (which also leaves the chat's outbox empty
    // for the next test's outage).
    await waitFor('the Telegram message edited to closed', async () => fakes.telegram.edits.find((e) => e.message_id === shown.message_id && /Answered: "release-2"/.test(e.text)));
  });

  it('a Telegram outage never blocks: the delivery is retried and arrives when Telegram is back', async () => {
    fakes.telegram.down = true;
    const sent = await callTool(mcp, 'svc_notify_owner', { message: 'during the outage', channels: ['telegram'], priority: 'urgent' });
    assert.equal(sent.isError, false, sent.text);
    // The bridge holds it in its outbox and says why it has not gone out yet (its own refusal, or that of
    // an earlier message to the chat it would wait behind); it stays pending.
    const failing = await waitFor('a failed attempt', async () => {
      const { body } = await server.api('GET', `/api/notifications/${sent.value.notificationId}/deliveries`, { key: a.owner });
      return /Telegram refused (sendMessage|editMessageText): 502/.test(body.deliveries[0].lastError ?? '') ? body.deliveries[0] : undefined;
    }, 30_000).finally(() => (fakes.telegram.down = false));
    assert.match(failing.lastError, /the telegram bridge queued it/);
    assert.notEqual(failing.status, 'failed');
    // In order behind what the outage held up in this chat, each retried after its backoff.
    await sentTo(fakes.telegram, CHAT, (m) => m.text === '[URGENT] during the outage', 0, 60_000);
    const bad = await callAs(server, a.owner, 'POST', '/api/internal/bridges/telegram/deliver', { kind: 'shout', channel: { type: 'telegram', chatId: CHAT }, text: 'x' });
    assert.equal(bad.status, 400);
  });

  it('shows a queued approval with Allow/Deny buttons and resolves it from the chat', async () => {
    await createAgent(server, a.owner, { name: 'approver', model: 'claude-sonnet-5-5', permissionMode: 'full-auto' });
    const setMode = (mode: string) => server.api('POST', '/api/operational-mode', { body: { mode } });
    try {
      assert.equal((await setMode('queued')).status, 200);
      fakes.anthropic.setScript([{ toolUses: [{ name: 'write_file', input: { path: 'tg.txt', content: 'approved' } }] }, 'Written after approval.']);
      const from = fakes.telegram.sent.length;
      await fakes.telegram.push(fakes.telegram.message(CHAT, '/agent approver'));
      await sentTo(fakes.telegram, CHAT, (m) => /Now talking to approver/.test(m.text), from);
      await fakes.telegram.push(fakes.telegram.message(CHAT, 'write tg.txt'));
      const approval = await sentTo(fakes.telegram, CHAT, (m) => /Approval needed: the agent wants to use write_file/.test(m.text), from, 30_000);
      const [allow, deny] = approval.reply_markup.inline_keyboard.flat();
      assert.deepEqual([allow.text, deny.text], ['Allow', 'Deny']);
      await fakes.telegram.push({ callback_query: { id: 'cb-ap', from: { id: CHAT, is_bot: false, first_name: 'Owner', username: 'owner' }, chat_instance: '1', message: { message_id: approval.message_id, date: 0, chat: { id: CHAT, type: 'private' }, text: approval.text }, data: allow.callback_data } });
      await sentTo(fakes.telegram, CHAT, (m) => m.text === 'Written after approval.', from, 30_000);
      assert.ok(fakes.telegram.edits.some((e) => e.message_id === approval.message_id && /Allowed by @owner/.test(e.text)));
      const queue = await server.api('GET', '/api/escalation-queue', { key: a.owner });
      assert.deepEqual(queue.body.entries, []);
    } finally {
      await setMode('normal');
    }
  });

  it('unloading the telegram extension leaves notifications working on the other channels', async () => {
    const unload = await server.api('POST', '/api/plugins/telegram/unload');
    assert.equal(unload.status, 200, unload.text);
    const sent = await callTool(mcp, 'svc_notify_owner', { message: 'after unload' });
    assert.equal(sent.isError, false, sent.text);
    const deliveries = await waitFor('both deliveries tried', async () => {
      const { body } = await server.api('GET', `/api/notifications/${sent.value.notificationId}/deliveries`, { key: a.owner });
      const tg = body.deliveries.find((d: any) => d.channelType === 'telegram');
      const wh = body.deliveries.find((d: any) => d.channelType === 'webhook');
      return tg.lastError && wh.status === 'delivered' ? { tg, wh } : undefined;
    });
    assert.match(deliveries.tg.lastError, /the telegram bridge extension is not loaded/);
    assert.equal((await server.api('GET', '/api/bridges/telegram', { key: a.owner })).status, 404);
  });
});
