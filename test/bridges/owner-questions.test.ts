// An owner question asked through svc_ask_owner on several chat channels of one tenant (two Slack
// channels and a Discord channel): answered by a real button press on one of them, the agent gets the
// answer and every other message is closed exactly once. Also: a press another tenant forges finds
// nothing, and a press that cannot be recorded leaves the buttons for another try.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FIXTURES, callTool, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { discordSigner, startFakeDiscord, type FakeDiscord } from '../fakes/discord.js';
import { slackHeaders, startFakeSlack, type FakeSlack } from '../fakes/slack.js';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from '../sessions/harness.js';

const SLACK = { team: 'T0ASKING', token: 'xoxb-7-asking', secret: 'asking-signing-secret' };
const DISCORD = { app: '110000000000000088', token: 'discord-bot-token.asking_0123456789', channel: '220000000000000088' };

describe('owner questions on several chat channels', () => {
  let h: Harness;
  let slack: FakeSlack;
  let discord: FakeDiscord;
  let mcp: Client;
  let other: Tenant;
  const signer = discordSigner();
  let presses = 0;

  before(async () => {
    slack = await startFakeSlack();
    slack.addToken(SLACK.token, SLACK.team);
    discord = await startFakeDiscord(DISCORD.token);
    h = await startHarness({
      env: {
        ROOST_EXTENSION_DIRS: FIXTURES, ROOST_EXT_SLACK_API_URL: slack.apiUrl, ROOST_EXT_DISCORD_API_URL: discord.apiUrl,
        ROOST_EXT_SLACK_RETRY_BASE_MS: '200', ROOST_EXT_DISCORD_RETRY_BASE_MS: '200', ROOST_EXT_NOTIFICATIONS_RETRY_BASE_MS: '200', ROOST_EXT_NOTIFICATIONS_MIN_TIMEOUT_SECONDS: '1',
      },
    });
    assert.equal((await h.server.api('PUT', '/api/bridges/slack', { body: { botToken: SLACK.token, signingSecret: SLACK.secret } })).status, 200);
    assert.equal((await h.server.api('PUT', '/api/bridges/discord', { body: { applicationId: DISCORD.app, publicKey: signer.publicKey, botToken: DISCORD.token } })).status, 200);
    for (const body of [{ type: 'slack', name: 'one', config: { channel: 'C0ONE', channelId: 'C0ONE' } }, { type: 'slack', name: 'two', config: { channel: 'C0TWO', channelId: 'C0TWO' } }, { type: 'discord', config: { channelId: DISCORD.channel } }]) {
      const res = await h.server.api('POST', '/api/notification-channels', { body });
      assert.equal(res.status, 201, res.text);
    }
    other = await registerTenant(h.server, 'asking-other');
    mcp = await mcpClient(h.server);
  });
  after(async () => {
    await mcp?.close();
    await h.close();
    await slack.close();
    await discord.close();
  });

  const questionIn = (channel: string, text: string) => waitFor(`the question in ${channel}`, async () => slack.posts(channel).find((c) => c.args.text?.includes(text) && Array.isArray(c.args.blocks)), 20_000);
  const discordQuestion = (text: string) => waitFor('the question on Discord', async () => discord.calls.find((c) => c.method === 'POST' && c.path === `/channels/${DISCORD.channel}/messages` && c.json.content?.includes(text)), 20_000);
  const slackUpdates = (channel: string, ts: string) => slack.calls.filter((c) => c.method === 'chat.update' && c.args.channel === channel && c.args.ts === ts);
  const discordEdits = (messageId: string) => discord.calls.filter((c) => c.method === 'PATCH' && c.path === `/channels/${DISCORD.channel}/messages/${messageId}`);

  function slackPress(channel: string, ts: string, action: { action_id: string; value: string }, team = SLACK.team, secret = SLACK.secret) {
    const payload = { type: 'block_actions', team: { id: team }, user: { id: `U${++presses}`, username: 'owner-in-slack' }, channel: { id: channel }, message: { ts }, actions: [action] };
    const raw = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return h.server.api('POST', '/workchat/interactions', { raw, headers: { 'content-type': 'application/x-www-form-urlencoded', ...slackHeaders(secret, raw) } });
  }

  function discordPress(messageId: string, customId: string) {
    const raw = JSON.stringify({ id: `37000000000000${++presses}`, application_id: DISCORD.app, type: 3, token: `press-${presses}`, channel_id: DISCORD.channel, message: { id: messageId }, data: { custom_id: customId, component_type: 2 }, member: { user: { id: '44000000000000009', username: 'owner-on-discord' } } });
    return h.server.api('POST', '/discord/interactions', { raw, headers: signer.headers(raw) });
  }

  it('a Slack button answers it: the agent gets the answer, every other message is closed once', async () => {
    const asking = callTool(mcp, 'svc_ask_owner', { question: 'Ship it?', options: ['ship', 'hold'], timeout: 2 });
    const [one, two, onDiscord] = await Promise.all([questionIn('C0ONE', 'Ship it?'), questionIn('C0TWO', 'Ship it?'), discordQuestion('Ship it?')]);
    const buttons = two.args.blocks.find((b: any) => b.type === 'actions').elements;
    assert.deepEqual(buttons.map((b: any) => b.text.text), ['ship', 'hold']);
    const pressed = await slackPress('C0TWO', two.ts!, { action_id: buttons[0].action_id, value: buttons[0].value });
    assert.equal(pressed.status, 200, pressed.text);
    const result = await asking;
    assert.equal(result.isError, false, result.text);
    assert.equal(result.value.answered, true);
    assert.equal(result.value.answer, 'ship');
    assert.equal(result.value.channel, 'slack');
    assert.equal(result.value.responder, 'owner-in-slack');

    const closedOne = await waitFor('the other Slack channel closed', async () => slackUpdates('C0ONE', one.ts!)[0]);
    assert.match(closedOne.args.text, /Closed: Answered: "ship" \(via slack, by owner-in-slack\)/);
    const closedDiscord = await waitFor('the Discord message closed', async () => discordEdits(onDiscord.id!)[0]);
    assert.deepEqual(closedDiscord.json.components, []);
    // Each message is closed once (the answer's close and a late dispatch's close never both go out).
    await waitFor('the answered message closed too', async () => (slackUpdates('C0TWO', two.ts!).length >= 1 ? true : undefined));
    const question = (await h.server.api('GET', `/api/owner-questions/${result.value.questionId}`)).body;
    await waitFor('every close delivered', async () => {
      const q = (await h.server.api('GET', `/api/owner-questions/${result.value.questionId}`)).body;
      return q.dispatches.filter((d: any) => d.kind === 'question_closed' && d.status === 'delivered').length === 3 ? true : undefined;
    });
    assert.equal(question.dispatches.filter((d: any) => d.kind === 'question').length, 3);
    assert.equal(slackUpdates('C0ONE', one.ts!).length, 1);
    assert.equal(discordEdits(onDiscord.id!).length, 1);

    // A second press finds it closed: said in the thread, nothing recorded.
    await slackPress('C0ONE', one.ts!, { action_id: buttons[1].action_id, value: buttons[1].value });
    const said = await waitFor('the closed notice', async () => slack.posts('C0ONE').find((c) => c.args.thread_ts === one.ts));
    assert.match(said.args.text, /already closed/);
  });

  it('a Discord button answers the next one; Slack is closed on both channels', async () => {
    const asking = callTool(mcp, 'svc_ask_owner', { question: 'Roll back?', options: ['yes', 'no'], timeout: 2 });
    const [one, two, onDiscord] = await Promise.all([questionIn('C0ONE', 'Roll back?'), questionIn('C0TWO', 'Roll back?'), discordQuestion('Roll back?')]);
    const buttons = onDiscord.json.components[0].components;
    const pressed = await discordPress(onDiscord.id!, buttons[1].custom_id);
    assert.equal(pressed.status, 200, pressed.text);
    assert.equal(pressed.body.type, 7, 'the message is updated in place');
    assert.deepEqual(pressed.body.data.components, []);
    const result = await asking;
    assert.equal(result.value.answer, 'no');
    assert.equal(result.value.channel, 'discord');
    for (const message of [one, two]) {
      const closed = await waitFor('a Slack message closed', async () => slackUpdates(message.args.channel, message.ts!)[0]);
      assert.match(closed.args.text, /Closed: Answered: "no" \(via discord/);
    }
  });

  it('a press forged for another tenant\'s workspace, or with another tenant\'s secret, changes nothing', async () => {
    const asking = callTool(mcp, 'svc_ask_owner', { question: 'Forged?', options: ['a', 'b'], timeout: 10 / 60 });
    const message = await questionIn('C0ONE', 'Forged?');
    const buttons = message.args.blocks.find((b: any) => b.type === 'actions').elements;
    // The other tenant connects its own workspace and signs a press naming this message.
    slack.addToken('xoxb-8-other', 'T0OTHER');
    assert.equal((await h.server.api('PUT', '/api/bridges/slack', { key: other.owner, body: { botToken: 'xoxb-8-other', signingSecret: 'other-secret' } })).status, 200);
    const forged = await slackPress('C0ONE', message.ts!, { action_id: buttons[0].action_id, value: buttons[0].value }, 'T0OTHER', 'other-secret');
    assert.equal(forged.status, 200);
    const wrongSecret = await slackPress('C0ONE', message.ts!, { action_id: buttons[0].action_id, value: buttons[0].value }, SLACK.team, 'other-secret');
    assert.equal(wrongSecret.status, 401);
    const result = await asking;
    assert.equal(result.value.answered, false, 'nobody answered it');
    assert.equal(result.value.status, 'expired');
  });
});
