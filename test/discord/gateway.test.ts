// Ordinary messages through the Discord Gateway (a fake Gateway on loopback, the real @discordjs/ws
// client): no bot token, no connection; a mention is answered in its channel, a message in the bot's own
// thread without one; the bot's own messages and unaddressed ones are ignored; a drop is resumed and what
// the session missed meanwhile is still answered; spoken answers come from the voice cache.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callAs } from '../agents/support.js';
import { BOT_USER_ID } from '../fakes/discord.js';
import { messageCreate, startFakeGateway, type FakeGateway } from '../fakes/discord-gateway.js';
import { waitFor } from '../helpers/wait.js';
import { APP_ID, BOT_TOKEN, CHANNEL, slash, startDiscordHarness, VOICE_CHANNEL, type DiscordHarness } from './support.js';

const GUILD_MESSAGES = 1 << 9;
const MESSAGE_CONTENT = 1 << 15;

describe('discord: messages through the Gateway', () => {
  let gateway: FakeGateway;
  let h: DiscordHarness;
  let agent: any;
  before(async () => {
    gateway = await startFakeGateway(BOT_TOKEN, BOT_USER_ID, APP_ID);
    h = await startDiscordHarness({ ROOST_EXT_DISCORD_GATEWAY_URL: gateway.url });
    agent = await h.agent();
  });
  after(async () => {
    await h.close();
    await gateway.close();
  });

  const posted = (channel: string) => h.discord.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${channel}/messages`);
  const replyTo = (channel: string, messageId: string) => waitFor(`the reply to ${messageId}`, async () => posted(channel).find((c) => c.json.message_reference?.message_id === messageId), 20_000);

  it('makes no connection while no bot token is configured', async () => {
    const put = await h.configure({ applicationId: APP_ID, publicKey: h.signer.publicKey, channels: { [CHANNEL]: agent.id, [VOICE_CHANNEL]: agent.id } });
    assert.equal(put.status, 200, put.text);
    // The PUT answers after the bridge has looked at the Gateway connections it should hold.
    assert.equal(put.body.gateway, null);
    assert.equal(gateway.counts.connections, 0);
    assert.equal(h.discord.calls.filter((c) => c.path === '/gateway/bot').length, 0);
  });

  it('with a bot token, identifies with the message intents and answers a mention in its channel', async () => {
    const put = await h.configure({ botToken: BOT_TOKEN });
    assert.equal(put.status, 200, put.text);
    await waitFor('the session', async () => (gateway.live ? true : undefined));
    assert.equal(gateway.counts.identifies, 1);
    assert.equal(gateway.query?.get('v'), '10');
    assert.equal((gateway.intents ?? 0) & (GUILD_MESSAGES | MESSAGE_CONTENT), GUILD_MESSAGES | MESSAGE_CONTENT);
    const ready = await waitFor('the bridge to report the connection ready', async () => {
      const got = await h.server.api('GET', '/api/bridges/discord');
      return got.body.gateway?.status === 'ready' ? got.body.gateway : undefined;
    });
    assert.equal(ready.lastError, null);

    h.anthropic.setScript(['Hello from the agent.']);
    const mention = messageCreate(CHANNEL, `<@${BOT_USER_ID}> hello there`, { mentions: [BOT_USER_ID] });
    gateway.dispatch('MESSAGE_CREATE', mention);
    const reply = await replyTo(CHANNEL, mention.id);
    assert.equal(reply.json.content, 'Hello from the agent.');
    assert.equal(reply.token, `Bot ${BOT_TOKEN}`);
    assert.deepEqual(reply.json.allowed_mentions, { parse: [] });
    assert.equal(reply.files.length, 0, 'no voice on this channel');
  });

  it("ignores the bot's own messages and messages that do not address it", async () => {
    const before = posted(CHANNEL).length;
    gateway.dispatch('MESSAGE_CREATE', messageCreate(CHANNEL, `<@${BOT_USER_ID}> talking to myself`, { author: { id: BOT_USER_ID, username: 'roost-bot', bot: true }, mentions: [BOT_USER_ID] }));
    gateway.dispatch('MESSAGE_CREATE', messageCreate(CHANNEL, 'just chatting with a friend'));
    // Dispatches are handled in order: once this one is answered, the two before it were passed over.
    h.anthropic.setScript(['Only this one.']);
    const addressed = messageCreate(CHANNEL, `<@${BOT_USER_ID}> and now you`, { mentions: [BOT_USER_ID] });
    gateway.dispatch('MESSAGE_CREATE', addressed);
    const reply = await replyTo(CHANNEL, addressed.id);
    assert.equal(reply.json.content, 'Only this one.');
    assert.equal(posted(CHANNEL).length, before + 1, 'one reply, to the addressed message only');
  });

  it("answers a message without a mention in the bot's own thread, in the thread's session", async () => {
    h.anthropic.setScript(['Thread opened.', 'Still in the thread.']);
    const ask = slash('ask', { prompt: 'open a thread' });
    assert.equal((await h.interact(ask)).status, 200);
    const thread = await waitFor('the thread', async () => [...h.discord.threads].find(([, t]) => t.parentId === CHANNEL && t.name === 'open a thread')?.[0]);
    await waitFor('the answer in the thread', async () => posted(thread).find((c) => c.json.content === 'Thread opened.'), 20_000);
    const sessionOf = async () => (await callAs(h.server, undefined, 'GET', '/api/internal/bridges/discord/conversations')).body.conversations.find((c: any) => c.conversationId === thread)?.sessionId;
    const sessionId = await sessionOf();
    assert.ok(sessionId);

    const message = messageCreate(thread, 'and a follow-up, no mention');
    gateway.dispatch('MESSAGE_CREATE', message);
    const reply = await replyTo(thread, message.id);
    assert.equal(reply.json.content, 'Still in the thread.');
    assert.equal(await sessionOf(), sessionId, 'the same session as the /ask that opened the thread');
  });

  it('resumes after a drop and answers what was sent meanwhile', async () => {
    const identifies = gateway.counts.identifies;
    gateway.drop();
    await waitFor('the drop', async () => (gateway.live ? undefined : true));
    h.anthropic.setScript(['Missed nothing.', 'And after.']);
    const meanwhile = messageCreate(CHANNEL, `<@${BOT_USER_ID}> are you there?`, { mentions: [BOT_USER_ID] });
    gateway.dispatch('MESSAGE_CREATE', meanwhile);
    await waitFor('the resume', async () => (gateway.live ? true : undefined), 20_000);
    assert.equal(gateway.counts.resumes, 1);
    assert.equal(gateway.counts.identifies, identifies, 'resumed, not identified again');
    assert.equal((await replyTo(CHANNEL, meanwhile.id)).json.content, 'Missed nothing.');

    const afterwards = messageCreate(CHANNEL, `<@${BOT_USER_ID}> and now?`, { mentions: [BOT_USER_ID] });
    gateway.dispatch('MESSAGE_CREATE', afterwards);
    assert.equal((await replyTo(CHANNEL, afterwards.id)).json.content, 'And after.');
    assert.ok(gateway.counts.heartbeats > 0, 'the client heartbeats');
  });

  it('speaks the answer where voice is on, through the voice cache', async () => {
    assert.equal((await h.configure({ voice: { channels: [VOICE_CHANNEL] } })).status, 200);
    const speechCalls = () => h.speech.requests.filter((r) => r.path === '/v1/audio/speech' && r.body?.input === 'Said aloud.').length;
    h.anthropic.setScript(['Said aloud.', 'Said aloud.']);
    for (const round of [1, 2]) {
      const mention = messageCreate(VOICE_CHANNEL, `<@${BOT_USER_ID}> say it (${round})`, { mentions: [BOT_USER_ID] });
      gateway.dispatch('MESSAGE_CREATE', mention);
      const reply = await replyTo(VOICE_CHANNEL, mention.id);
      assert.equal(reply.json.content, 'Said aloud.');
      assert.equal(reply.files.length, 1);
      assert.deepEqual(reply.files[0]!.data, h.speech.audioFor('Said aloud.'));
    }
    assert.equal(speechCalls(), 1, 'the second answer came from the voice cache');
    const cache = await h.server.api('GET', '/api/voice-cache');
    assert.ok(cache.body.hits >= 1, cache.text);
  });
});
