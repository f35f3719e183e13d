// The Slack bridge under pressure: one message arriving as two events, forged, stale and replayed
// presses, a flood of mentions from one user, a Slack outage while a conversation goes on, and the
// bridge unloaded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callAs, callTool, mcpClient } from '../agents/support.js';
import { slackHeaders } from '../fakes/slack.js';
import { waitFor } from '../helpers/wait.js';
import { BOT_TOKEN, SIGNING_SECRET, TEAM, mention, startSlackHarness, type SlackHarness } from './support.js';

describe('slack: duplicates, replays, floods and outages', () => {
  let h: SlackHarness;
  let agent: any;
  before(async () => {
    h = await startSlackHarness({ ROOST_EXT_SLACK_INBOUND_PER_MINUTE: '3' });
    agent = await h.agent();
    const put = await h.configure({ botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET, channels: { C0RES: agent.id, C0FLOOD: agent.id } });
    assert.equal(put.status, 200, put.text);
  });
  after(() => h.close());

  const repliesIn = (channel: string, threadTs: string) => h.slack.posts(channel).filter((c) => c.args.thread_ts === threadTs);

  it('a mention that arrives as both app_mention and message is answered once', async () => {
    h.anthropic.setScript(['Once.', 'Twice?']);
    const first = mention('C0RES', 'hello once', { user: 'UONE' });
    const event = first.event as any;
    assert.equal((await h.deliver(first)).status, 200);
    // The same message through the message.channels subscription: another event id, the same ts.
    const echo = { ...first, event_id: `${first.event_id as string}-msg`, event: { ...event, type: 'message', channel_type: 'channel' } };
    assert.equal((await h.deliver(echo)).status, 200);
    await waitFor('the reply', async () => repliesIn('C0RES', event.ts)[0], 20_000);
    const sessions = (await h.server.api('GET', '/api/sessions')).body.sessions.filter((s: any) => s.agentId === agent.id);
    await h.until(sessions[0].id, (s) => !s.busy, 20_000);
    assert.equal(repliesIn('C0RES', event.ts).length, 1, 'one reply for one message');
    assert.equal(h.anthropic.requests.filter((r) => r.path === '/v1/messages').length, 1);
  });

  it('refuses a forged, a stale and a replayed press', async () => {
    const payload = { type: 'block_actions', team: { id: TEAM }, user: { id: 'U1', username: 'x' }, channel: { id: 'C0RES' }, message: { ts: '1.1' }, actions: [{ action_id: 'roost_answer_0', value: 'q|0' }] };
    const raw = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const post = (headers: Record<string, string>) => h.server.api('POST', '/workchat/interactions', { raw, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
    assert.equal((await post(slackHeaders('not-the-secret', raw))).status, 401);
    const stale = await post(slackHeaders(SIGNING_SECRET, raw, Math.floor(Date.now() / 1000) - 600));
    assert.equal(stale.status, 401);
    assert.match(stale.body.error, /five-minute window/);
    const signed = slackHeaders(SIGNING_SECRET, raw);
    assert.equal((await post(signed)).status, 200);
    const replay = await post(signed);
    assert.equal(replay.status, 409);
    assert.match(replay.body.error, /already handled/);
  });

  it('limits a flood of new mentions from one user: a few sessions, one notice, the rest dropped', async () => {
    h.anthropic.setScript(['Flood answer.']);
    const sessionsBefore = (await h.server.api('GET', '/api/sessions')).body.sessions.length;
    const flood = Array.from({ length: 6 }, (_, i) => mention('C0FLOOD', `flood ${i}`, { user: 'UFLOOD' }));
    for (const m of flood) assert.equal((await h.deliver(m)).status, 200);
    const notice = await waitFor('the flood notice', async () => h.slack.posts('C0FLOOD').find((c) => /Too many messages/.test(c.args.text)), 20_000);
    assert.ok(notice);
    await waitFor('the admitted replies', async () => (h.slack.posts('C0FLOOD').filter((c) => c.args.text === 'Flood answer.').length === 3 ? true : undefined), 30_000);
    const sessionsAfter = (await h.server.api('GET', '/api/sessions')).body.sessions.length;
    assert.equal(sessionsAfter - sessionsBefore, 3, 'three sessions, not six');
    assert.equal(h.slack.posts('C0FLOOD').filter((c) => /Too many messages/.test(c.args.text)).length, 1, 'told once');
  });

  it('an outage delays a reply (retried with backoff) without holding up the session', async () => {
    h.anthropic.setScript(['After the outage.']);
    h.slack.failNext(5);
    const ask = mention('C0RES', 'during the outage', { user: 'UOUT' });
    const threadTs = (ask.event as any).ts;
    await h.deliver(ask);
    const reply = await waitFor('the reply after the outage', async () => repliesIn('C0RES', threadTs)[0], 30_000);
    assert.equal(reply.args.text, 'After the outage.');
    const failed = h.slack.calls.filter((c) => c.failed && c.method === 'chat.postMessage' && c.args.thread_ts === threadTs);
    assert.ok(failed.length >= 3, `the reply was refused ${failed.length} times before it went out`);
    const session = (await h.server.api('GET', '/api/sessions')).body.sessions.find((s: any) => s.name === 'slack: during the outage');
    assert.equal((await h.get(session.id)).busy, false, 'the session finished its turn; only the reply waited');
  });

  it('paces what it sends to one channel: queued a second apart, in order, none dropped', async () => {
    const list = await callAs(h.server, undefined, 'GET', '/api/internal/bridges/slack/conversations');
    const conversation = list.body.conversations.find((c: any) => c.conversationId.startsWith('C0RES:'));
    const sends = await Promise.all(['one', 'two', 'three'].map((text) => callAs(h.server, undefined, 'POST', `/api/internal/bridges/slack/conversations/${encodeURIComponent(conversation.conversationId)}/send`, { text: `paced ${text}` })));
    for (const s of sends) assert.equal(s.status, 200);
    const posts = await waitFor('the three paced messages', async () => {
      const found = h.slack.posts('C0RES').filter((c) => /^paced /.test(c.args.text));
      return found.length === 3 ? found : undefined;
    });
    // A lower bound only: a slow machine makes the gaps longer, never shorter.
    for (let i = 1; i < posts.length; i++) assert.ok(posts[i]!.at - posts[i - 1]!.at >= 950, `message ${i} left ${posts[i]!.at - posts[i - 1]!.at} ms after the one before`);
  });

  it('unloaded, the bridge answers nothing and lists nothing; loaded again, its conversations are back', async () => {
    assert.equal((await h.server.api('POST', '/api/plugins/slack/unload')).status, 200);
    assert.equal((await h.deliver(mention('C0RES', 'anyone?'))).status, 404);
    const client = await mcpClient(h.server);
    try {
      const listed = await callTool(client, 'svc_bridge_sessions', {});
      assert.equal(listed.value.bridges.slack, undefined);
      assert.equal((await h.server.api('POST', '/api/plugins/load', { body: { name: 'slack' } })).status, 201);
      const again = await callTool(client, 'svc_bridge_sessions', { bridge: 'slack' });
      assert.equal(again.value.bridges.slack, 'ok');
      assert.ok(again.value.conversations.length >= 1);
    } finally {
      await client.close();
    }
  });
});
