import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { callAs } from '../agents/support.js';
import { repoRoot } from '../helpers/paths.js';
import { waitFor } from '../helpers/wait.js';
import { BOT_TOKEN, SIGNING_SECRET, TEAM, mention, startSlackHarness, type SlackHarness } from './support.js';

const notificationsLoaded = existsSync(join(repoRoot, 'extensions/notifications/plugin.toml'));

describe('slack: a conversation from mention to reply, approvals, owner questions, duplicates, restart', () => {
  let h: SlackHarness;
  let agent: any;
  before(async () => {
    h = await startSlackHarness();
    agent = await h.agent();
    const put = await h.configure({ botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET, channels: { C0DEV: agent.id } });
    assert.equal(put.status, 200, put.text);
  });
  after(() => h.close());

  const repliesIn = (threadTs: string) => h.slack.posts('C0DEV').filter((c) => c.args.thread_ts === threadTs);

  it('answers a mention in its thread, continues the thread on the same session, and ignores a retried delivery', async () => {
    h.anthropic.setScript(['Hello from the agent.', 'Second answer.']);
    const first = mention('C0DEV', 'hi there');
    const threadTs = (first.event as any).ts;
    const res = await h.deliver(first);
    assert.equal(res.status, 200);
    const reply = await waitFor('the reply in the thread', async () => repliesIn(threadTs)[0]);
    assert.equal(reply.args.text, 'Hello from the agent.');
    assert.equal(reply.token, BOT_TOKEN);

    // Slack retries the same event (same event_id, X-Slack-Retry-Num): acknowledged, not handled again.
    const retry = await h.deliver(first, { headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } });
    assert.equal(retry.status, 200);
    assert.equal(retry.body.duplicate, true);

    const next = mention('C0DEV', 'and again', { thread_ts: threadTs });
    await h.deliver(next);
    await waitFor('the second reply', async () => (repliesIn(threadTs).length === 2 ? true : undefined));
    assert.equal(repliesIn(threadTs)[1]!.args.text, 'Second answer.');
    const sessions = (await h.server.api('GET', '/api/sessions')).body.sessions.filter((s: any) => s.agentId === agent.id);
    assert.equal(sessions.length, 1, 'one session for the thread');
    assert.equal(h.anthropic.requests.filter((r) => r.path === '/v1/messages').length, 2, 'the retry never reached the model');

    const listed = await callAs(h.server, undefined, 'GET', '/api/internal/bridges/slack/conversations');
    assert.equal(listed.status, 200);
    const conversation = listed.body.conversations.find((c: any) => c.conversationId === `C0DEV:${threadTs}`);
    assert.equal(conversation.sessionId, sessions[0].id);
    assert.equal(conversation.bridge, 'slack');
  });

  it('ignores its own messages, bot messages and messages not addressed to it', async () => {
    const before = h.slack.posts().length;
    await h.deliver({ ...mention('C0DEV', 'x'), event: { type: 'message', channel: 'C0DEV', user: 'UROOSTBOT', text: 'mine', ts: '1.1' } });
    await h.deliver({ ...mention('C0DEV', 'x'), event: { type: 'message', channel: 'C0DEV', bot_id: 'B1', text: 'bot', ts: '1.2' } });
    await h.deliver({ ...mention('C0DEV', 'x'), event: { type: 'message', channel: 'C0DEV', channel_type: 'channel', user: 'U2', text: 'chatter', ts: '1.3' } });
    const unmapped = mention('C0ELSEWHERE', 'anyone?');
    await h.deliver(unmapped);
    const told = await waitFor('the no-agent notice', async () => h.slack.posts('C0ELSEWHERE')[0]);
    assert.match(told.args.text, /No agent is mapped/);
    assert.equal(h.slack.posts().length, before + 1);
  });

  it('shows an approval as buttons and resolves it from the button', async () => {
    const setMode = (mode: string) => h.server.api('POST', '/api/operational-mode', { body: { mode } });
    assert.equal((await setMode('queued')).status, 200);
    try {
      h.anthropic.setScript([{ toolUses: [{ name: 'write_file', input: { path: 'slack.txt', content: 'from slack' } }] }, 'Written.']);
      const ask = mention('C0DEV', 'write a file');
      const threadTs = (ask.event as any).ts;
      await h.deliver(ask);
      const prompt = await waitFor('the approval buttons', async () => repliesIn(threadTs).find((c) => Array.isArray(c.args.blocks)), 20_000);
      const actions = prompt.args.blocks.find((b: any) => b.type === 'actions').elements;
      assert.deepEqual(actions.map((e: any) => e.text.text), ['Allow', 'Deny']);
      const [channel, ts] = [prompt.args.channel, prompt.ts!];
      const pressed = await h.press({ channel, ts }, { action_id: actions[0].action_id, value: actions[0].value });
      assert.equal(pressed.status, 200);
      const update = await waitFor('the approval message updated', async () => h.slack.calls.find((c) => c.method === 'chat.update' && c.args.ts === ts));
      assert.match(update.args.text, /Allowed by owner-in-slack/);
      const done = await waitFor('the reply after the approval', async () => repliesIn(threadTs).find((c) => c.args.text === 'Written.'), 20_000);
      assert.ok(done);
      // A second press finds the approval already resolved.
      await h.press({ channel, ts }, { action_id: actions[1].action_id, value: actions[1].value });
      await waitFor('the second update', async () => (h.slack.calls.filter((c) => c.method === 'chat.update' && c.args.ts === ts).length === 2 ? true : undefined));
      assert.match(h.slack.calls.filter((c) => c.method === 'chat.update' && c.args.ts === ts)[1]!.args.text, /Already resolved/);
    } finally {
      await setMode('normal');
    }
  });

  it('delivers notifications and owner questions (contract), passes a button answer on, closes the question', async () => {
    const note = await callAs(h.server, undefined, 'POST', '/api/internal/bridges/slack/deliver', { kind: 'notification', channel: { type: 'slack', channelId: 'C0OWNER' }, text: 'Build broke', priority: 'urgent' });
    assert.equal(note.status, 200);
    assert.match(note.body.externalId, /^C0OWNER:/);
    assert.equal(h.slack.posts('C0OWNER')[0]!.args.text, '[URGENT] Build broke');

    const asked = await callAs(h.server, undefined, 'POST', '/api/internal/bridges/slack/deliver', { kind: 'question', channel: { type: 'slack', channelId: 'C0OWNER' }, text: 'Deploy now?', question: { id: 'q-1', options: ['yes', 'no'] } });
    assert.equal(asked.status, 200);
    const message = h.slack.posts('C0OWNER')[1]!;
    const buttons = message.args.blocks.find((b: any) => b.type === 'actions').elements;
    assert.deepEqual(buttons.map((b: any) => b.text.text), ['yes', 'no']);
    const ts = asked.body.externalId.split(':')[1];
    const pressed = await h.press({ channel: 'C0OWNER', ts }, { action_id: buttons[0].action_id, value: buttons[0].value });
    assert.equal(pressed.status, 200);
    // The answer went to the notifications extension, which knows no question q-1 (real questions are
    // answered in test/bridges/owner-questions.test.ts): refused, said in the thread, and the buttons
    // stay for another try (no update of the message).
    const said = await waitFor('the outcome in chat', async () => h.slack.posts('C0OWNER').find((c) => c.args.thread_ts === ts));
    assert.match(said.args.text, notificationsLoaded ? /could not be recorded: .*q-1/ : /notifications extension is not loaded/);
    assert.equal(h.slack.calls.filter((c) => c.method === 'chat.update' && c.args.ts === ts).length, 0, 'the buttons stay');

    // A reply in the question's thread answers it too.
    await h.deliver({ ...mention('C0OWNER', 'x'), event: { type: 'message', channel: 'C0OWNER', channel_type: 'channel', user: 'UOWNER', text: 'No', ts: '1.9', thread_ts: ts } });
    const replied = await waitFor('the outcome of the thread reply', async () => (h.slack.posts('C0OWNER').filter((c) => c.args.thread_ts === ts).length >= 2 ? h.slack.posts('C0OWNER').filter((c) => c.args.thread_ts === ts).at(-1) : undefined));
    assert.match(replied.args.text, notificationsLoaded ? /could not be recorded: .*q-1/ : /notifications extension is not loaded/);

    const closed = await callAs(h.server, undefined, 'POST', '/api/internal/bridges/slack/deliver', { kind: 'question_closed', channel: { type: 'slack', channelId: 'C0OWNER' }, text: 'answered "no" on telegram', reference: asked.body.externalId });
    assert.equal(closed.status, 200);
    const update = h.slack.calls.find((c) => c.method === 'chat.update' && c.args.ts === ts);
    assert.match(update!.args.text, /Closed: answered "no" on telegram/);

    for (const bad of [{ kind: 'question', channel: { type: 'slack', channelId: 'C1' }, text: 'no question field' }, { kind: 'notification', channel: { type: 'telegram' }, text: 'x' }, { kind: 'shout', channel: { type: 'slack' }, text: 'x' }, { kind: 'notification', channel: { type: 'slack' }, text: 'no channel id' }]) {
      const res = await callAs(h.server, undefined, 'POST', '/api/internal/bridges/slack/deliver', bad);
      assert.equal(res.status, 400, JSON.stringify(bad));
    }
    assert.equal((await h.server.api('POST', '/api/internal/bridges/slack/deliver', { body: { kind: 'notification' } })).status, 404, 'internal routes are not served over HTTP');
  });

  it('sends into a conversation, and a thread keeps its session across a restart', async () => {
    const list = (await callAs(h.server, undefined, 'GET', '/api/internal/bridges/slack/conversations')).body.conversations;
    const conversation = list.find((c: any) => c.title === 'hi there');
    const sent = await callAs(h.server, undefined, 'POST', `/api/internal/bridges/slack/conversations/${encodeURIComponent(conversation.conversationId)}/send`, { text: 'A word from the owner' });
    assert.equal(sent.status, 200);
    const threadTs = conversation.conversationId.split(':')[1];
    assert.ok(repliesIn(threadTs).some((c) => c.args.text === 'A word from the owner'));
    assert.equal((await callAs(h.server, undefined, 'POST', '/api/internal/bridges/slack/conversations/C0DEV:nope/send', { text: 'x' })).status, 404);

    await h.restart();
    h.anthropic.setScript(['After the restart.']);
    await h.deliver(mention('C0DEV', 'still there?', { thread_ts: threadTs }));
    await waitFor('the reply after the restart', async () => repliesIn(threadTs).find((c) => c.args.text === 'After the restart.'), 20_000);
    const after = (await callAs(h.server, undefined, 'GET', '/api/internal/bridges/slack/conversations')).body.conversations.find((c: any) => c.conversationId === conversation.conversationId);
    assert.equal(after.sessionId, conversation.sessionId, 'the thread kept its session');
    assert.equal((await h.server.api('GET', '/api/bridges/slack')).body.teamId, TEAM, 'the configuration survived too');
  });
});

