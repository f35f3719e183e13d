// Feedback: outcomes heard on the bus become rates per tenant (a real session ending, approvals a policy
// decided, and outcome events a probe extension publishes like councils and work tasks do), the week is
// compared with the one before, and the summary for prompts says it in a few words.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compare } from '../../extensions/feedback/analysis.js';
import type { Rates } from '../../extensions/feedback/rates.js';
import { registerTenant } from '../agents/support.js';
import { loadFixture } from '../fixtures/extensions/helpers.js';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from '../sessions/harness.js';

describe('feedback', () => {
  let h: Harness;
  const publish = (topic: string, payload: unknown, tenantId = 'default') =>
    h.server.api('POST', '/api/fx-probe/notify', { body: { message: { type: 'emit', topic, payload, tenantId } } });
  const metrics = async (key?: string) => (await h.server.api('GET', '/api/feedback/metrics', { key })).body;

  before(async () => {
    h = await startHarness({ anthropic: [{ toolUses: [{ name: 'write_file', input: { path: 'x.txt', content: 'x' } }] }, 'Could not write.', 'Hello.'] });
    assert.equal((await loadFixture(h.server, 'fx-probe')).status, 201);
    // Wake the feedback extension so it hears what follows.
    assert.equal((await h.server.api('GET', '/api/feedback/metrics')).status, 200);
  });
  after(() => h?.close());

  it('counts how sessions ended and how approvals went, from the real sessions extension', async () => {
    const planner = await h.agent({ permissionMode: 'plan' });
    const project = await h.project();
    const session = await h.session({ agentId: planner.id, projectId: project.id, initialPrompt: 'write x.txt' });
    await h.until(session.id, (s) => s.turns >= 2 && !s.busy);
    await h.server.api('POST', `/api/sessions/${session.id}/stop`);
    const m = await waitFor('the session and its denied write to be counted', async () => {
      const now = await metrics();
      return now.sessions.completed === 1 && now.approvals.denied === 1 ? now : undefined;
    });
    assert.equal(m.sessions.successRate, 1);
    assert.equal(m.approvals.deniedRate, 1);
    assert.deepEqual(m.deniedTools, [{ tool: 'write_file', by: 'policy', denied: 1 }]);
  });

  it('does not count a session that was deleted (stopped with reason `deleted`) as completed', async () => {
    const agent = await h.agent({ permissionMode: 'full-auto' });
    const session = await h.session({ agentId: agent.id });
    await h.until(session.id, (s) => s.status === 'running');
    assert.equal((await h.server.api('DELETE', `/api/sessions/${session.id}`)).status, 204);
    // The same reason as the sessions extension gives, from a publisher of its own; then a marker to wait on.
    await publish('sessions.lifecycle', { session: { id: 's-deleted', agentId: 'agent-d', status: 'stopped', statusReason: 'deleted' } });
    await publish('work_tasks.outcome', { taskId: 't-marker', agentId: 'a', merged: true, status: 'merged' });
    const m = await waitFor('the marker to be counted', async () => {
      const now = await metrics();
      return now.workTasks.merged === 1 ? now : undefined;
    });
    assert.deepEqual(m.sessions, { completed: 1, failed: 0, successRate: 1 }, 'only the session stopped before');
  });

  it('takes council and work-task outcomes from their events, per tenant', async () => {
    await publish('councils.outcome', { launchId: 'l-1', councilId: 'c-1', agreement: 0.5 });
    await publish('councils.outcome', { launchId: 'l-2', councilId: 'c-1', agreement: 1 });
    await publish('work_tasks.outcome', { taskId: 't-1', agentId: 'a', merged: true, status: 'merged' });
    await publish('work_tasks.outcome', { taskId: 't-2', agentId: 'a', merged: false, status: 'failed' });
    await publish('sessions.lifecycle', { session: { id: 's-x', agentId: 'agent-x', status: 'error' } });
    await publish('sessions.lifecycle', { session: { id: 's-y', agentId: 'agent-x', status: 'running' } });
    const m = await waitFor('the outcomes to be counted', async () => {
      const now = await metrics();
      return now.workTasks.failed === 1 && now.sessions.failed === 1 ? now : undefined;
    });
    assert.deepEqual(m.councils, { concluded: 2, meanAgreement: 0.75 });
    assert.deepEqual(m.workTasks, { merged: 2, failed: 1, mergeRate: 0.667 }, 'with the marker of the test before');
    assert.equal(m.sessions.successRate, 0.5, 'a running session is no outcome yet');
    assert.deepEqual(m.failingAgents, [{ agentId: 'agent-x', failed: 1, sessions: 1 }]);

    const context = (await h.server.api('GET', '/api/feedback/context')).body.context;
    assert.match(context, /^Outcomes of the last 7 days: 2 sessions ended, 50% completed; 1 of 1 tool uses denied \(most often write_file\); 2 councils concluded, 75% agreement on average; 2 of 3 work tasks merged\.$/);

    const other = await registerTenant(h.server, 'feedback-other');
    const theirs = await metrics(other.owner);
    assert.deepEqual(theirs.sessions, { completed: 0, failed: 0, successRate: null });
    assert.equal((await h.server.api('GET', '/api/feedback/context', { key: other.owner })).body.context, '');
  });

  it('compares the window with the one before, and refuses a bad one', async () => {
    const analysis = (await h.server.api('GET', '/api/feedback/analysis?days=3')).body;
    assert.equal(analysis.days, 3);
    assert.equal(analysis.previous.sessions.successRate, null);
    assert.equal(analysis.changes.find((c: { metric: string }) => c.metric === 'sessions.successRate').verdict, 'steady');
    for (const bad of ['0', '91', 'week', '2.5']) assert.equal((await h.server.api('GET', `/api/feedback/metrics?days=${bad}`)).status, 400, bad);
  });

  it('calls a move of five points or more better or worse, in words', () => {
    const rates = (success: number | null, denied: number | null): Rates => ({
      from: '', to: '',
      sessions: { completed: 0, failed: 0, successRate: success },
      approvals: { allowed: 0, denied: 0, deniedRate: denied },
      councils: { concluded: 0, meanAgreement: null },
      workTasks: { merged: 0, failed: 0, mergeRate: null },
    });
    const { changes, findings } = compare(rates(0.9, 0.1), rates(0.7, 0.12));
    assert.deepEqual(changes.slice(0, 2).map((c) => [c.metric, c.change, c.verdict]), [['sessions.successRate', -0.2, 'worse'], ['approvals.deniedRate', 0.02, 'steady']]);
    assert.deepEqual(findings, ['sessions that completed: 90% → 70% (worse)']);
    assert.equal(compare(rates(0.5, 0.4), rates(0.8, 0.1)).findings.length, 2);
  });
});
