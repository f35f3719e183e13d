// Discord threads as sessions: /ask in a channel opens a thread from the response and the agent answers
// in it; /ask in the thread continues that session, across a restart too. A Discord outage delays the
// answer (the outbox retries it), and a press that cannot be recorded keeps its buttons.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callAs } from '../agents/support.js';
import { waitFor } from '../helpers/wait.js';
import { APP_ID, BOT_TOKEN, CHANNEL, press, slash, startDiscordHarness, type DiscordHarness } from './support.js';

describe('discord: threads as sessions, outages, presses that fail', () => {
  let h: DiscordHarness;
  let agent: any;
  before(async () => {
    h = await startDiscordHarness();
    agent = await h.agent();
    const put = await h.configure({ applicationId: APP_ID, publicKey: h.signer.publicKey, botToken: BOT_TOKEN, channels: { [CHANNEL]: agent.id } });
    assert.equal(put.status, 200, put.text);
  });
  after(() => h.close());

  const threadAnswers = (thread: string) => h.discord.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${thread}/messages` && !/^Approval/.test(String(c.json.content)));
  const inThread = (name: string, options: Record<string, string>, thread: string) => ({ ...slash(name, options, thread), channel: { id: thread, type: 11, parent_id: CHANNEL } });

  let thread: string;
  let sessionId: string;

  it('/ask in a channel opens a thread and answers in it; /ask in the thread continues the same session', async () => {
    h.anthropic.setScript(['First, in the thread.', 'Second, same session.']);
    const ask = slash('ask', { prompt: 'start a thread please' });
    const res = await h.interact(ask);
    assert.equal(res.status, 200);
    assert.equal(res.body.type, 5, 'deferred');
    const opening = await waitFor('the opening message', async () => h.discord.calls.find((c) => c.method === 'PATCH' && /\/messages\/(@|%40)original$/.test(c.path) && c.path.startsWith(`/webhooks/${APP_ID}/${ask.token}/`)));
    assert.match(opening.json.content, /alice asked: start a thread please/);
    thread = await waitFor('the thread', async () => [...h.discord.threads].find(([, t]) => t.messageId === opening.id && t.parentId === CHANNEL)?.[0]);
    assert.equal(h.discord.threads.get(thread)!.name, 'start a thread please');
    const first = await waitFor('the answer in the thread', async () => threadAnswers(thread)[0], 20_000);
    assert.equal(first.json.content, 'First, in the thread.');
    assert.equal(first.token, `Bot ${BOT_TOKEN}`);

    const listed = await callAs(h.server, undefined, 'GET', '/api/internal/bridges/discord/conversations');
    const conversation = listed.body.conversations.find((c: any) => c.conversationId === thread);
    assert.ok(conversation?.sessionId, 'the thread is the conversation');
    sessionId = conversation.sessionId;

    // In the thread, the answer is the interaction's follow-up, which Discord shows in the thread.
    const more = inThread('ask', { prompt: 'and more' }, thread);
    await h.interact(more);
    const second = await waitFor('the second answer', async () => h.followUps(more.token)[0], 20_000);
    assert.equal(second.json.content, 'Second, same session.');
    assert.equal(h.discord.threads.size, 1, 'no second thread');
    const again = (await callAs(h.server, undefined, 'GET', '/api/internal/bridges/discord/conversations')).body.conversations.find((c: any) => c.conversationId === thread);
    assert.equal(again.sessionId, sessionId);
  });

  it('keeps the thread on its session across a restart', async () => {
    await h.restart();
    h.anthropic.setScript(['After the restart.']);
    const still = inThread('ask', { prompt: 'still you?' }, thread);
    await h.interact(still);
    const answer = await waitFor('the answer after the restart', async () => h.followUps(still.token)[0], 20_000);
    assert.equal(answer.json.content, 'After the restart.');
    const conversation = (await callAs(h.server, undefined, 'GET', '/api/internal/bridges/discord/conversations')).body.conversations.find((c: any) => c.conversationId === thread);
    assert.equal(conversation.sessionId, sessionId);
  });

  it('a Discord outage delays the answer; it is sent when Discord is back', async () => {
    h.anthropic.setScript(['Through the outage.']);
    const turns = (await h.get(sessionId)).turns;
    h.discord.down = true;
    const during = inThread('ask', { prompt: 'during the outage' }, thread);
    try {
      await h.interact(during);
      await waitFor('refused attempts', async () => (h.followUps(during.token).length >= 2 ? true : undefined), 30_000);
      const session = await h.until(sessionId, (s) => !s.busy && s.turns > turns, 20_000);
      assert.equal(session.busy, false, 'the session is not held up by the outage');
    } finally {
      h.discord.down = false;
    }
    const answer = await waitFor('the answer after the outage', async () => h.followUps(during.token).find((c) => c.id), 30_000);
    assert.equal(answer.json.content, 'Through the outage.');
  });

  it('a press that cannot be recorded keeps its buttons, so it can be tried again', async () => {
    const asked = await callAs(h.server, undefined, 'POST', '/api/internal/bridges/discord/deliver', { kind: 'question', channel: { type: 'discord', channelId: CHANNEL }, text: 'Keep?', question: { id: 'no-such-question', options: ['yes'] } });
    assert.equal(asked.status, 200);
    const messageId = asked.body.externalId.split(':')[1];
    // The notifications extension does not know this question: the answer is not recorded, and the
    // interaction says so in a new message instead of updating (and so emptying) the question's.
    const pressed = await h.interact(press(messageId, 'ans:no-such-question:0'));
    assert.equal(pressed.status, 200);
    assert.equal(pressed.body.type, 4, 'a new message, not an update');
    assert.match(pressed.body.data.content, /could not be recorded/);
    const again = await h.interact(press(messageId, 'ans:no-such-question:0'));
    assert.equal(again.body.type, 4, 'the button still answers');
  });
});
