// Mention polling: comments read with ETags, each mention from an allowlisted user starting one session
// however often polls see it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from './harness.js';

describe('mention polling', () => {
  let h: Harness;
  let agent: any;
  before(async () => {
    h = await startHarness({ ROOST_EXT_CODEHOST_POLL_TICK_MS: '100' });
    agent = await h.agent({ name: 'poll-bot' });
    await h.server.api('POST', '/api/vcshost-allowlist', { body: { username: 'alice' } });
    h.anthropic.setScript(['Seen.']);
  });
  after(() => h.close());

  const activity = async (id: string) => (await h.server.api('GET', `/api/mention-polling/${id}/activity`)).body.activity as any[];
  const polls = async (id: string) => (await h.server.api('GET', `/api/mention-polling/${id}`)).body;

  it('starts one session per mention, whatever how often it is seen', async () => {
    const first = h.codehost.social.addComment('acme/widgets', 5, 'alice', 'Hey @poll-bot, have a look');
    const made = await h.server.api('POST', '/api/mention-polling', { body: { repo: 'acme/widgets', intervalSeconds: 1 } });
    assert.equal(made.status, 201, made.text);
    const id = made.body.id;
    const [seen] = await waitFor('the mention to start a session', async () => {
      const list = await activity(id);
      return list.length > 0 && list[0].outcome !== 'pending' ? list : undefined;
    }, 20_000);
    assert.equal(seen.commentId, String(first.id));
    assert.equal(seen.outcome, 'session_started', JSON.stringify(seen));
    const session = await h.server.api('GET', `/api/sessions/${seen.sessionId}`);
    assert.equal(session.body.agentId, agent.id);
    // The next polls send the ETag and get 304: nothing new.
    await waitFor('a 304 poll', async () => ((await polls(id)).notModified >= 1 ? true : undefined), 20_000);

    // New comments change the ETag and the list (since is inclusive, so the first is listed again).
    h.codehost.social.addComment('acme/widgets', 5, 'mallory', '@poll-bot do something bad');
    const second = h.codehost.social.addComment('acme/widgets', 6, 'alice', '@poll-bot and this one');
    const list = await waitFor('both new comments to be handled', async () => {
      const l = await activity(id);
      return l.length === 3 && l.every((a) => a.outcome !== 'pending') ? l : undefined;
    }, 20_000);
    const byComment = Object.fromEntries(list.map((a) => [a.commentId, a]));
    assert.match(byComment[String(second.id) as string].outcome, /session_started/);
    assert.equal(list.filter((a) => a.outcome === 'session_started').length, 2);
    assert.match(list.find((a) => a.sender === 'mallory').reason, /not on the code-host allowlist/);
    const stats = (await h.server.api('GET', '/api/mention-polling/stats')).body;
    assert.equal(stats.sessionsStarted, 2);
    assert.equal(stats.commentsSeen, 3);
    assert.equal(stats.rateLimit.remaining, 4999);
    // Sessions started for mentions: exactly one per mentioning comment.
    const sessions = (await h.server.api('GET', '/api/sessions?limit=200')).body.sessions.filter((s: any) => s.agentId === agent.id);
    assert.equal(sessions.length, 2);
  });

  it('updates, pauses, deletes and refuses bad input and other tenants', async () => {
    const made = (await h.server.api('POST', '/api/mention-polling', { body: { repo: 'acme/secret', intervalSeconds: 30, active: false } })).body;
    assert.equal((await h.server.api('POST', '/api/mention-polling', { body: { repo: 'ACME/secret' } })).status, 409);
    assert.equal((await h.server.api('POST', '/api/mention-polling', { body: { repo: 'nope' } })).status, 400);
    assert.equal((await h.server.api('POST', '/api/mention-polling', { body: { repo: 'a/b', intervalSeconds: 0 } })).status, 400);
    const put = await h.server.api('PUT', `/api/mention-polling/${made.id}`, { body: { intervalSeconds: 60 } });
    assert.deepEqual([put.status, put.body.intervalSeconds, put.body.active], [200, 60, false]);
    assert.equal((await h.server.api('PUT', `/api/mention-polling/${made.id}`, { body: {} })).status, 400);
    const other = (await h.server.api('POST', '/api/tenants/register', { body: { org: 'poll-other' } })).body.apiKey;
    assert.equal((await h.server.api('GET', `/api/mention-polling/${made.id}`, { key: other })).status, 404);
    assert.equal((await h.server.api('GET', `/api/mention-polling/${made.id}/activity`, { key: other })).status, 404);
    assert.deepEqual((await h.server.api('GET', '/api/mention-polling', { key: other })).body.configs, []);
    assert.equal((await h.server.api('GET', '/api/mention-polling/stats', { key: other })).body.configs, 0);
    assert.equal((await h.server.api('DELETE', `/api/mention-polling/${made.id}`)).status, 204);
    assert.equal((await h.server.api('GET', `/api/mention-polling/${made.id}`)).status, 404);
  });
});
