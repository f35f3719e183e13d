import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from '../sessions/harness.js';

describe('analytics and the feed follow real sessions', () => {
  let h: Harness;
  let other: string;
  let agentId: string;
  let sessionId: string;
  before(async () => {
    // One turn of 1,000 input and 200 output tokens: 3,000 + 3,000 microUnits at the default Anthropic prices.
    h = await startHarness({ anthropic: [{ text: 'Done.', usage: { input_tokens: 1000, output_tokens: 200 } }] });
    other = (await h.server.api('POST', '/api/tenants/register', { body: { org: 'other' } })).body.apiKey;
    agentId = (await h.agent()).id;
    sessionId = (await h.session({ agentId, initialPrompt: 'Say done.' })).id;
    await h.until(sessionId, (s) => s.turns >= 1 && !s.busy);
    await h.server.api('POST', `/api/sessions/${sessionId}/stop`);
  });
  after(() => h.close());

  it('counts sessions by agent, source and status, and spending by day', async () => {
    const stats = await waitFor('the stopped session in the statistics', async () => {
      const res = await h.server.api('GET', '/api/analytics/sessions');
      return res.body.byStatus.some((r: { status: string }) => r.status === 'stopped') ? res.body : undefined;
    });
    assert.deepEqual(stats.byAgent.map((r: { agentId: string; count: number }) => [r.agentId, r.count]), [[agentId, 1]]);
    assert.deepEqual(stats.bySource.map((r: { source: string; count: number }) => [r.source, r.count]), [['web', 1]]);

    const spending = await waitFor("today's spending", async () => {
      const res = await h.server.api('GET', '/api/analytics/spending?days=7');
      return res.body.series.at(-1).total > 0 ? res.body : undefined;
    });
    assert.equal(spending.series.length, 7);
    const session = (await h.server.api('GET', `/api/sessions/${sessionId}`)).body;
    assert.equal(spending.series.at(-1).total, session.cost);

    const overview = await h.server.api('GET', '/api/analytics/overview');
    assert.equal(overview.body.sessions.total, 1);
    assert.equal(overview.body.sessions.byStatus.stopped, 1);
    assert.equal(overview.body.agents, 1);
    assert.equal(overview.body.spending.today, session.cost);
  });

  it('counts every agent of the tenant, however many there are', async () => {
    for (let i = 0; i < 3; i++) await h.agent();
    const overview = await h.server.api('GET', '/api/analytics/overview');
    assert.equal(overview.body.agents, 4);
    assert.equal((await h.server.api('GET', '/api/analytics/overview', { key: other })).body.agents, 0);
  });

  it('shows the session in the activity feed', async () => {
    const feed = await waitFor('the stopped session in the feed', async () => {
      const res = await h.server.api('GET', '/api/feed/history?kind=session');
      return res.body.items.some((i: { kind: string }) => i.kind === 'session.stopped') ? res.body : undefined;
    });
    assert.ok(feed.items.every((i: { resource: string }) => i.resource === `session:${sessionId}`));
  });

  it('keeps tenants apart and refuses bad parameters', async () => {
    const theirs = await h.server.api('GET', '/api/analytics/overview', { key: other });
    assert.equal(theirs.body.sessions.total, 0);
    assert.equal(theirs.body.spending.today, 0);
    assert.deepEqual((await h.server.api('GET', '/api/analytics/sessions', { key: other })).body.byAgent, []);
    const bad = await h.server.api('GET', '/api/analytics/spending?days=0');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /days/);
    assert.equal((await h.server.api('GET', '/api/analytics/spending?days=x')).status, 400);
  });
});
