import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURES, callTool, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { discordSigner, startFakeDiscord, type FakeDiscord } from '../fakes/discord.js';
import { slackHeaders, startFakeSlack, type FakeSlack } from '../fakes/slack.js';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from '../sessions/harness.js';

const SLACK = { team: 'T0BRIDGES', token: 'xoxb-9-bridges', secret: 'bridges-signing-secret' };
const DISCORD = { app: '110000000000000077', token: 'discord-bot-token.bridges_0123456789', channel: '220000000000000077' };

describe('bridges: svc_bridge_sessions and svc_bridge_request over both bridges, one unloaded while the other goes on', () => {
  let h: Harness;
  let slack: FakeSlack;
  let discord: FakeDiscord;
  let other: Tenant;
  const signer = discordSigner();
  let n = 0;

  before(async () => {
    slack = await startFakeSlack();
    slack.addToken(SLACK.token, SLACK.team);
    discord = await startFakeDiscord(DISCORD.token);
    h = await startHarness({
      env: { ROOST_EXTENSION_DIRS: FIXTURES, ROOST_EXT_SLACK_API_URL: slack.apiUrl, ROOST_EXT_DISCORD_API_URL: discord.apiUrl, ROOST_EXT_SLACK_RETRY_BASE_MS: '200', ROOST_EXT_DISCORD_RETRY_BASE_MS: '200' },
    });
    // This file is about Slack and Discord; with Telegram unloaded it also shows a bridge that is not there.
    assert.equal((await h.server.api('POST', '/api/plugins/telegram/unload')).status, 200);
    other = await registerTenant(h.server, 'other-org');
    const agent = await h.agent();
    assert.equal((await h.server.api('PUT', '/api/bridges/slack', { body: { botToken: SLACK.token, signingSecret: SLACK.secret, defaultAgentId: agent.id } })).status, 200);
    assert.equal((await h.server.api('PUT', '/api/bridges/discord', { body: { applicationId: DISCORD.app, publicKey: signer.publicKey, botToken: DISCORD.token, defaultAgentId: agent.id } })).status, 200);
  });
  after(async () => {
    await h.close();
    await slack.close();
    await discord.close();
  });

  async function slackMention(text: string): Promise<string> {
    const ts = `${1_900_000_000 + ++n}.000300`;
    const raw = JSON.stringify({ type: 'event_callback', team_id: SLACK.team, event_id: `EvB${n}`, event: { type: 'app_mention', channel: 'C0TEAM', user: 'U1', text, ts } });
    assert.equal((await h.server.api('POST', '/workchat/events', { raw, headers: slackHeaders(SLACK.secret, raw) })).status, 200);
    await waitFor('the slack reply', async () => slack.posts('C0TEAM').find((c) => c.args.thread_ts === ts), 20_000);
    return `C0TEAM:${ts}`;
  }

  async function discordAsk(prompt: string): Promise<string> {
    const token = `bridges-token-${++n}`;
    const raw = JSON.stringify({ id: `36000000000000${n}`, application_id: DISCORD.app, type: 2, token, channel_id: DISCORD.channel, data: { name: 'ask', options: [{ name: 'prompt', type: 3, value: prompt }] } });
    assert.equal((await h.server.api('POST', '/discord/interactions', { raw, headers: signer.headers(raw) })).status, 200);
    // The tenant has a bot token: the answer goes into the thread opened from the response.
    const opening = await waitFor('the opening message', async () => discord.calls.find((c) => c.method === 'PATCH' && /\/messages\/(@|%40)original$/.test(c.path) && c.path.startsWith(`/webhooks/${DISCORD.app}/${token}/`)));
    const thread = await waitFor('the thread', async () => [...discord.threads].find(([, t]) => t.messageId === opening.id)?.[0]);
    await waitFor('the answer in the thread', async () => discord.calls.find((c) => c.method === 'POST' && c.path === `/channels/${thread}/messages`), 20_000);
    return thread;
  }

  it('lists the conversations of both bridges for the caller’s tenant only, and sends into one', async () => {
    h.anthropic.setScript(['Answer.']);
    const slackConversation = await slackMention('hello from slack');
    const discordThread = await discordAsk('hello from discord');
    const client = await mcpClient(h.server);
    try {
      const listed = await callTool(client, 'svc_bridge_sessions', {});
      assert.equal(listed.isError, false, listed.text);
      // The bridges are the loaded extensions serving the contract: Telegram is unloaded, so it is not one.
      assert.deepEqual(listed.value.bridges, { discord: 'ok', slack: 'ok' });
      assert.deepEqual(listed.value.conversations.map((c: any) => c.bridge).sort(), ['discord', 'slack']);
      for (const c of listed.value.conversations) assert.ok(c.sessionId && c.agentId && c.title && c.lastActivityAt);
      const onlySlack = await callTool(client, 'svc_bridge_sessions', { bridge: 'slack' });
      assert.deepEqual(onlySlack.value.conversations.map((c: any) => c.conversationId), [slackConversation]);

      const sent = await callTool(client, 'svc_bridge_request', { bridge: 'slack', conversation_id: slackConversation, message: 'Status update from an agent' });
      assert.equal(sent.isError, false, sent.text);
      assert.ok(slack.posts('C0TEAM').some((c) => c.args.text === 'Status update from an agent' && c.args.thread_ts === slackConversation.split(':')[1]));
      assert.equal(sent.value.status, 'sent');
      // The same session sending the same message again (a retry) gets the first send's status, not a second message.
      const again = await callTool(client, 'svc_bridge_request', { bridge: 'slack', conversation_id: slackConversation, message: 'Status update from an agent' });
      assert.equal(again.value.outboxId, sent.value.outboxId);
      assert.equal(slack.posts('C0TEAM').filter((c) => c.args.text === 'Status update from an agent').length, 1);
      const toDiscord = await callTool(client, 'svc_bridge_request', { bridge: 'discord', conversation_id: discordThread, message: 'Hi Discord' });
      assert.equal(toDiscord.isError, false, toDiscord.text);
      assert.ok(discord.calls.some((c) => c.path === `/channels/${discordThread}/messages` && c.json.content === 'Hi Discord'));

      for (const [args, why] of [
        [{ bridge: 'slack', conversation_id: 'C0TEAM:0.0', message: 'x' }, /not found/],
        [{ bridge: 'telegram', conversation_id: '1', message: 'x' }, /no loaded extension serves a chat bridge named "telegram"; loaded bridges: discord, slack/],
        [{ bridge: 'irc', conversation_id: '1', message: 'x' }, /no loaded extension serves a chat bridge named "irc"/],
        [{ bridge: 'Not A Bridge', conversation_id: '1', message: 'x' }, /bridge/],
        [{ bridge: 'slack', conversation_id: slackConversation }, /message/],
        [{ bridge: 'slack', conversation_id: slackConversation, message: 'x'.repeat(5000) }, /message/],
      ] as const) {
        const res = await callTool(client, 'svc_bridge_request', args);
        assert.equal(res.isError, true, JSON.stringify(args));
        assert.match(res.text, why);
      }
    } finally {
      await client.close();
    }
    const foreign = await mcpClient(h.server, other.operator);
    try {
      assert.deepEqual((await callTool(foreign, 'svc_bridge_sessions', {})).value.conversations, []);
      const res = await callTool(foreign, 'svc_bridge_request', { bridge: 'slack', conversation_id: slackConversation, message: 'sneaky' });
      assert.equal(res.isError, true);
      assert.match(res.text, /not found/);
    } finally {
      await foreign.close();
    }
  });

  it('keeps Slack and every session working while Discord is unloaded', async () => {
    const discordSession = (await h.server.api('GET', '/api/sessions')).body.sessions.find((s: any) => s.name?.startsWith('discord:'));
    assert.ok(discordSession);
    assert.equal((await h.server.api('POST', '/api/plugins/discord/unload')).status, 200);
    const gone = await h.server.api('POST', '/discord/interactions', { raw: '{}' });
    assert.equal(gone.status, 404);

    h.anthropic.setScript(['Still here.']);
    await slackMention('are you there');
    const client = await mcpClient(h.server);
    try {
      const listed = await callTool(client, 'svc_bridge_sessions', {});
      assert.deepEqual(listed.value.bridges, { slack: 'ok' });
      assert.ok(listed.value.conversations.every((c: any) => c.bridge === 'slack'));
      const res = await callTool(client, 'svc_bridge_request', { bridge: 'discord', conversation_id: DISCORD.channel, message: 'x' });
      assert.equal(res.isError, true);
      assert.match(res.text, /no loaded extension serves a chat bridge named "discord"; loaded bridges: slack/);
      const unknown = await callTool(client, 'svc_bridge_sessions', { bridge: 'discord' });
      assert.equal(unknown.isError, true);
      assert.match(unknown.text, /no loaded extension serves a chat bridge named "discord"/);
    } finally {
      await client.close();
    }
    // The session the Discord channel talked to goes on without its bridge.
    const turns = discordSession.turns;
    assert.equal((await h.server.api('POST', `/api/sessions/${discordSession.id}/messages`, { body: { content: 'continue without discord' } })).status, 202);
    await h.until(discordSession.id, (s) => s.turns > turns && !s.busy, 20_000);
  });
});
