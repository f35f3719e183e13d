import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerTenant, type Tenant } from '../agents/support.js';
import { discordSigner } from '../fakes/discord.js';
import { waitFor } from '../helpers/wait.js';
import { APP_ID, BOT_TOKEN, CHANNEL, press, slash, startDiscordHarness, type DiscordHarness } from './support.js';

describe('discord: configuration, signatures, slash commands, threads as sessions, approvals', () => {
  let h: DiscordHarness;
  let other: Tenant;
  let agent: any;
  before(async () => {
    h = await startDiscordHarness();
    other = await registerTenant(h.server, 'other-org');
    agent = await h.agent();
  });
  after(() => h.close());

  /** A command sent in a thread (CHANNEL plays one here; opening threads is test/discord/threads.test.ts): answers come as follow-ups. */
  const inThread = (name: string, options: Record<string, string> = {}) => ({ ...slash(name, options), channel: { id: CHANNEL, type: 11, parent_id: '220000000000000000' } });

  it('stores the configuration (bot token sealed, never returned), owner only, one application per tenant', async () => {
    assert.deepEqual((await h.server.api('GET', '/api/bridges/discord')).body, { configured: false });
    assert.equal((await h.configure({ botToken: BOT_TOKEN })).status, 400, 'applicationId and publicKey come first');
    const put = await h.configure({ applicationId: APP_ID, publicKey: h.signer.publicKey, botToken: BOT_TOKEN, channels: { [CHANNEL]: agent.id } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.hasBotToken, true);
    assert.equal(put.body.applicationId, APP_ID);
    assert.ok(!put.text.includes(BOT_TOKEN));
    assert.ok(!(await h.server.api('GET', '/api/bridges/discord')).text.includes(BOT_TOKEN));

    for (const body of [{ applicationId: 'abc' }, { publicKey: 'zz' }, { voice: { channels: ['x'] } }, { channels: { [CHANNEL]: 7 } }, { nope: 1 }]) {
      const res = await h.configure(body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    const foreign = await h.agent({}, other.owner);
    assert.match((await h.configure({ defaultAgentId: foreign.id })).body.error, /not found/);
    assert.equal((await h.server.api('GET', '/api/bridges/discord', { key: other.operator })).status, 403);
    assert.equal((await h.server.api('PUT', '/api/bridges/discord', { key: other.operator, body: {} })).status, 403);
    assert.equal((await h.server.api('GET', '/api/voice-cache', { key: other.viewer })).status, 403);
    assert.deepEqual((await h.server.api('GET', '/api/bridges/discord', { key: other.owner })).body, { configured: false });
    assert.equal((await h.configure({ applicationId: APP_ID, publicKey: h.signer.publicKey }, other.owner)).status, 409);
  });

  it('verifies signatures: PING answered when signed; invalid, stale, unsigned, replayed and malformed refused', async () => {
    const ping = { id: '330000000000009999', application_id: APP_ID, type: 1, token: 'ping-token' };
    const pong = await h.interact(ping);
    assert.equal(pong.status, 200);
    assert.deepEqual(pong.body, { type: 1 });

    const forged = await h.interact(ping, { signer: discordSigner() });
    assert.equal(forged.status, 401);
    assert.equal(forged.body.code, 'INVALID_SIGNATURE');
    const stale = await h.interact(ping, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    assert.equal(stale.status, 401);
    assert.match(stale.body.error, /five-minute window/);
    assert.equal((await h.server.api('POST', '/discord/interactions', { raw: JSON.stringify(ping) })).status, 401);
    const tampered = await h.interact(ping, { headers: { 'x-signature-timestamp': String(Math.floor(Date.now() / 1000) - 1) } });
    assert.equal(tampered.status, 401);

    const status = slash('status');
    assert.equal((await h.interact(status)).status, 200);
    const replay = await h.interact(status);
    assert.equal(replay.status, 409, 'the same interaction twice is a replay');

    assert.equal((await h.interact('{"id":')).status, 400);
    assert.equal((await h.interact({ type: 1 })).status, 400);
    assert.equal((await h.interact({ ...ping, application_id: '999999999' })).status, 404);
    assert.equal((await h.server.api('GET', '/api/health')).status, 200);
  });

  it('answers /ask in a thread with a deferred response and follow-ups; the thread keeps one session', async () => {
    h.anthropic.setScript(['First answer.', 'Second answer.']);
    const first = inThread('ask', { prompt: 'hello discord' });
    const res = await h.interact(first);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { type: 5 });
    const reply = await waitFor('the follow-up', async () => h.followUps(first.token)[0], 20_000);
    assert.equal(reply.json.content, 'First answer.');
    assert.equal(reply.files.length, 0, 'no voice on this channel');

    const second = inThread('ask', { prompt: 'and again' });
    await h.interact(second);
    assert.equal((await waitFor('the second follow-up', async () => h.followUps(second.token)[0], 20_000)).json.content, 'Second answer.');
    const sessions = (await h.server.api('GET', '/api/sessions')).body.sessions.filter((s: any) => s.agentId === agent.id);
    assert.equal(sessions.length, 1);

    const status = await h.interact(slash('status'));
    assert.match(status.body.data.content, new RegExp(`session ${sessions[0].id}`));
    const usage = await h.interact(slash('ask'));
    assert.match(usage.body.data.content, /Usage: \/ask/);
    const unknown = await h.interact(slash('dance'));
    assert.match(unknown.body.data.content, /Unknown command/);
    const unmapped = await h.interact(slash('ask', { prompt: 'x' }, '220000000000000099'));
    assert.match(unmapped.body.data.content, /No agent is mapped/);
  });

  it('switches the agent with /agent and stops the session with /stop', async () => {
    const helper = await h.agent({ name: 'helper-bot' });
    assert.match((await h.interact(slash('agent'))).body.data.content, new RegExp(agent.id));
    assert.match((await h.interact(slash('agent', { agent: 'nobody' }))).body.data.content, /No agent named nobody/);
    assert.match((await h.interact(slash('agent', { agent: 'helper-bot' }))).body.data.content, /now talks to agent helper-bot/);
    h.anthropic.setScript(['Helper here.']);
    const ask = inThread('ask', { prompt: 'who are you' });
    await h.interact(ask);
    await waitFor('the helper reply', async () => h.followUps(ask.token)[0], 20_000);
    const sessions = (await h.server.api('GET', '/api/sessions')).body.sessions.filter((s: any) => s.agentId === helper.id);
    assert.equal(sessions.length, 1);
    const stopped = await h.interact(slash('stop'));
    assert.match(stopped.body.data.content, /Stopped session/);
    await h.until(sessions[0].id, (s) => s.status === 'stopped');
    assert.match((await h.interact(slash('stop'))).body.data.content, /Nothing to stop/);
  });

  it('shows approvals as buttons and resolves them from a press', async () => {
    const setMode = (mode: string) => h.server.api('POST', '/api/operational-mode', { body: { mode } });
    assert.equal((await setMode('queued')).status, 200);
    try {
      h.anthropic.setScript([{ toolUses: [{ name: 'write_file', input: { path: 'discord.txt', content: 'ok' } }] }, 'File written.']);
      const ask = inThread('ask', { prompt: 'write it' });
      await h.interact(ask);
      const prompt = await waitFor('the approval buttons', async () => h.followUps(ask.token).find((c) => c.json.components), 20_000);
      const [allow] = prompt.json.components[0].components;
      assert.equal(allow.label, 'Allow');
      const pressed = await h.interact(press(prompt.id!, allow.custom_id));
      assert.equal(pressed.status, 200);
      assert.equal(pressed.body.type, 7, 'the message is updated in place');
      assert.match(pressed.body.data.content, /Allowed by alice/);
      assert.deepEqual(pressed.body.data.components, []);
      await waitFor('the reply after the approval', async () => h.followUps(ask.token).find((c) => c.json.content === 'File written.'), 20_000);
      const again = await h.interact(press(prompt.id!, allow.custom_id));
      assert.match(again.body.data.content, /Already resolved/);
      assert.match((await h.interact(press('123456789', 'esc:allow:nope'))).body.data.content, /nothing that is still open/);
    } finally {
      await setMode('normal');
    }
  });
});
