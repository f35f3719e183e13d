import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { createAgent, registerTenant, type Tenant } from '../agents/support.js';
import { daysAgo, emit, record, startReputationServer } from './support.js';

/** The documented curve: 100 / (1 + e^(−total / 5)). */
const curve = (total: number) => 100 / (1 + Math.exp(-total / 5));

describe('reputation: events, scores with decay, identities', () => {
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  let agentA: any;
  let agentB: any;
  before(async () => {
    // Scores go stale after 5 s even without events (decay moves them); see the staleness test.
    server = await startReputationServer({ ROOST_EXT_REPUTATION_STALE_SECONDS: '5' });
    [a, b] = await Promise.all([registerTenant(server, 'rep-a'), registerTenant(server, 'rep-b')]);
    agentA = await createAgent(server, a.operator, { name: 'rep-agent-a' });
    agentB = await createAgent(server, b.operator, { name: 'rep-agent-b' });
  });
  after(() => server.cleanup());

  const score = async (key: string, agentId: string) => {
    const res = await server.api('GET', `/api/reputation/scores/${agentId}`, { key });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  it('scores a constructed history with decay: older events weigh less', async () => {
    const old = await createAgent(server, a.operator, { name: 'old-history' });
    const fresh = await createAgent(server, a.operator, { name: 'fresh-history' });
    // Half-life 30 days: impacts 1, 4, −1 and +2 (a 5-star review) aged 0, 30, 60 and 90 days.
    const history: Array<[string, number, Record<string, unknown>?]> = [['session_completed', 0], ['work_task_merged', 30], ['session_failed', 60], ['review', 90, { rating: 5 }]];
    for (const [kind, age, extra] of history) {
      await record(server, a.operator, { agentId: old.id, kind, occurredAt: daysAgo(age), ...extra });
      await record(server, a.operator, { agentId: fresh.id, kind, ...extra });
    }
    const decayed = await score(a.viewer, old.id);
    assert.equal(decayed.eventCount, 4);
    assert.ok(Math.abs(decayed.components.decayedTotal - (1 + 2 - 0.25 + 0.25)) < 0.001, JSON.stringify(decayed.components));
    assert.ok(Math.abs(decayed.score - curve(3)) < 0.01, `${decayed.score} vs ${curve(3)}`);
    const undecayed = await score(a.viewer, fresh.id);
    assert.ok(Math.abs(undecayed.score - curve(6)) < 0.01);
    assert.ok(undecayed.score > decayed.score);
    assert.deepEqual(decayed.components.byKind, { session_completed: 1, work_task_merged: 1, session_failed: 1, review: 1 });
    const none = await score(a.viewer, agentA.id);
    assert.equal(none.score, 50, 'no history: the middle of the scale');
  });

  it('recomputes a stale score on read, and every score on demand', async () => {
    const first = await score(a.viewer, agentA.id);
    const cached = await score(a.viewer, agentA.id);
    assert.equal(cached.computedAt, first.computedAt, 'a fresh score is served as stored');
    await record(server, a.operator, { agentId: agentA.id, kind: 'reported_failure' });
    const stale = await score(a.viewer, agentA.id);
    assert.notEqual(stale.computedAt, first.computedAt, 'a new event makes the score stale');
    assert.ok(Math.abs(stale.score - curve(-2)) < 0.01);

    const all = await server.api('GET', '/api/reputation/scores', { key: a.viewer });
    assert.equal(all.status, 200);
    assert.ok(all.body.scores.some((s: any) => s.agentId === agentA.id));
    assert.ok(all.body.scores.every((s: any) => s.agentId !== agentB.id), 'only the tenant\'s agents');
    const forced = await server.api('POST', '/api/reputation/scores', { key: a.operator });
    assert.equal(forced.status, 200);
    const again = forced.body.scores.find((s: any) => s.agentId === agentA.id);
    assert.ok(again.computedAt > stale.computedAt);
    const one = await server.api('POST', `/api/reputation/scores/${agentA.id}`, { key: a.operator });
    assert.equal(one.status, 200);
    assert.ok(one.body.computedAt >= again.computedAt);

    const aged = await waitFor('the score to go stale by age alone', async () => {
      const read = await score(a.viewer, agentA.id);
      return read.computedAt !== one.body.computedAt ? read : undefined;
    }, 30_000);
    assert.ok(Date.parse(aged.computedAt) - Date.parse(one.body.computedAt) >= 5_000);
    assert.equal(aged.eventCount, one.body.eventCount);
  });

  it('records outcomes heard on the bus: work tasks, sessions, marketplace reviews and uses', async () => {
    const worker = await createAgent(server, a.operator, { name: 'worker' });
    const outcome = { taskId: 'task-1', agentId: worker.id, tenantId: a.tenantId, status: 'completed', merged: true, prUrl: 'https://example.com/pr/1', failureReason: null };
    await emit(server, a.operator, 'work_tasks.outcome', outcome);
    const events = async () => (await server.api('GET', `/api/reputation/events/${worker.id}`, { key: a.viewer })).body.events as any[];
    await waitFor('the merged work task', async () => ((await events()).some((e) => e.kind === 'work_task_merged') ? true : undefined));
    await emit(server, a.operator, 'work_tasks.outcome', { ...outcome, status: 'failed', merged: false, failureReason: 'tests failed' });
    await waitFor('the failure to replace it', async () => {
      const list = await events();
      return list.length === 1 && list[0].kind === 'work_task_failed' ? true : undefined;
    });
    await emit(server, a.operator, 'sessions.lifecycle', { session: { id: 'session-1', agentId: worker.id, status: 'running' } });
    await emit(server, a.operator, 'sessions.lifecycle', { session: { id: 'session-1', agentId: worker.id, status: 'stopped' } });
    await waitFor('the completed session', async () => ((await events()).some((e) => e.kind === 'session_completed') ? true : undefined));
    await emit(server, a.operator, 'work_tasks.outcome', { taskId: 'garbage' });
    await emit(server, a.operator, 'sessions.lifecycle', 'not an object');
    assert.equal((await events()).length, 2, 'malformed outcomes record nothing');
    // Another tenant's bus events never reach this tenant's agents.
    await emit(server, b.operator, 'work_tasks.outcome', { ...outcome, taskId: 'task-b' });
    await emit(server, a.operator, 'sessions.lifecycle', { session: { id: 'session-2', agentId: worker.id, status: 'error' } });
    await waitFor('the failed session', async () => ((await events()).some((e) => e.kind === 'session_failed') ? true : undefined));
    assert.equal((await events()).length, 3);

    const listing = await server.api('POST', '/api/marketplace/listings', { key: a.operator, body: { kind: 'agent', name: 'Worker for hire', agentId: worker.id } });
    const review = await server.api('POST', `/api/marketplace/listings/${listing.body.id}/reviews`, { key: b.operator, body: { rating: 1 } });
    assert.equal(review.status, 201);
    await waitFor('the review', async () => ((await events()).some((e) => e.kind === 'review' && e.impact === -2) ? true : undefined));
    const used = await server.api('POST', `/api/marketplace/listings/${listing.body.id}/use`, { key: b.operator, body: { outcome: 'failure', reason: 'no answer' } });
    assert.equal(used.status, 201, used.text);
    await waitFor('the reported failure', async () => ((await events()).some((e) => e.kind === 'reported_failure') ? true : undefined));
    assert.equal((await server.api('DELETE', `/api/marketplace/reviews/${review.body.id}`, { key: b.operator })).status, 204);
    await waitFor('the deleted review to be forgotten', async () => ((await events()).some((e) => e.kind === 'review') ? undefined : true));

    const recomputed = await server.api('POST', `/api/reputation/scores/${worker.id}`, { key: a.operator });
    await waitFor('the marketplace to rank the listing by the new score', async () => {
      const seen = await server.api('GET', `/api/marketplace/listings/${listing.body.id}`, { key: a.viewer });
      return seen.body.agentReputation === recomputed.body.score ? true : undefined;
    });
  });

  it('refuses bad events and another tenant\'s agents', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ agentId: agentA.id, kind: 'bribe' }, /kind/],
      [{ agentId: agentA.id, kind: 'review' }, /rating is required/],
      [{ agentId: agentA.id, kind: 'session_completed', rating: 5 }, /rating is required for kind review, and only/],
      [{ agentId: agentA.id, kind: 'session_completed', occurredAt: new Date(Date.now() + 86_400_000).toISOString() }, /future/],
      [{ agentId: agentA.id, kind: 'session_completed', occurredAt: 'yesterday' }, /occurredAt/],
      [{ kind: 'session_completed' }, /agentId/],
      [{ agentId: agentA.id, kind: 'session_completed', detail: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i])) }, /detail/],
    ];
    for (const [body, message] of cases) {
      const res = await server.api('POST', '/api/reputation/events', { key: a.operator, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.error, message);
    }
    const foreign = await server.api('POST', '/api/reputation/events', { key: a.operator, body: { agentId: agentB.id, kind: 'reported_failure' } });
    assert.equal(foreign.status, 404);
    for (const path of [`/api/reputation/scores/${agentB.id}`, `/api/reputation/events/${agentB.id}`, `/api/reputation/identity/${agentB.id}`, `/api/reputation/attestation/${agentB.id}`]) {
      const res = await server.api('GET', path, { key: a.viewer });
      assert.equal(res.status, 404, path);
    }
    assert.equal((await server.api('POST', '/api/reputation/events', { key: a.viewer, body: { agentId: agentA.id, kind: 'session_completed' } })).status, 403);
    assert.equal((await server.api('POST', '/api/reputation/events', { key: a.operator, raw: '{"agentId":' })).status, 400);
    const b0 = (await server.api('GET', `/api/reputation/events/${agentB.id}`, { key: b.viewer })).body.events;
    assert.ok(b0.every((e: any) => e.kind !== 'reported_failure'), 'nothing was recorded for B');
  });

  it('keeps identities with a tier that only an owner raises', async () => {
    const initial = await server.api('GET', `/api/reputation/identity/${agentA.id}`, { key: a.viewer });
    assert.equal(initial.body.tier, 'unverified');
    const byOperator = await server.api('PUT', `/api/reputation/identity/${agentA.id}`, { key: a.operator, body: { tier: 'verified' } });
    assert.equal(byOperator.status, 403);
    assert.match(byOperator.body.error, /only an owner raises/);
    const byOwner = await server.api('PUT', `/api/reputation/identity/${agentA.id}`, { key: a.owner, body: { tier: 'trusted', evidence: 'signed contract' } });
    assert.equal(byOwner.status, 200, byOwner.text);
    assert.equal(byOwner.body.tier, 'trusted');
    const lowered = await server.api('PUT', `/api/reputation/identity/${agentA.id}`, { key: a.operator, body: { tier: 'basic' } });
    assert.equal(lowered.status, 200, 'anyone who may write lowers a tier');
    assert.equal(lowered.body.evidence, 'signed contract');
    assert.equal((await server.api('PUT', `/api/reputation/identity/${agentA.id}`, { key: a.owner, body: { tier: 'godlike' } })).status, 400);
    assert.equal((await server.api('PUT', `/api/reputation/identity/${agentB.id}`, { key: a.owner, body: { tier: 'trusted' } })).status, 404);
    const list = await server.api('GET', '/api/reputation/identities', { key: a.viewer });
    assert.deepEqual(list.body.identities.map((i: any) => [i.agentId, i.tier]), [[agentA.id, 'basic']]);
    assert.deepEqual((await server.api('GET', '/api/reputation/identities', { key: b.viewer })).body.identities, []);
  });
});
