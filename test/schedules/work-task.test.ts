// A schedule whose action creates a work task, against the real work-tasks extension (the fake
// Anthropic API and code host, a git repository in a temp folder): destructive, so it waits for the
// owner; the owner's trigger approves it; the execution lasts until the task opened its pull request,
// and costs what the task's session was charged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, writes, type Harness } from '../work-tasks/harness.js';
import { CLOCK_ENV, createSchedule, setClock, settled } from './support.js';

describe('schedules: a work-task action', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness(CLOCK_ENV);
    await setClock(h.server, { to: '2026-06-15T00:00:00.000Z' });
  });
  after(() => h?.close());

  it('waits for approval by default, then runs the task to its pull request', async () => {
    h.anthropic.setScript(writes('42'));
    const repo = await h.repo();
    const agent = await h.agent();
    const s = await createSchedule(h.server, { name: 'nightly fix', intervalSeconds: 86_400, action: { type: 'work_task', description: 'Write 42 into answer.txt', projectId: repo.projectId, agentId: agent.id } });
    assert.equal(s.approval, 'owner_approve', 'a work task changes a repository: the owner approves it');
    assert.equal(s.agentId, agent.id);

    await setClock(h.server, { advanceMs: 86_400_000 });
    const [waiting] = await settled(h.server, s.id, 1, ['awaiting_approval']);
    const approved = await h.server.api('POST', `/api/schedule-executions/${waiting.id}/resolve`, { body: { decision: 'approve' } });
    assert.equal(approved.status, 200, approved.text);

    const [execution] = await settled(h.server, s.id, 1, ['succeeded', 'failed']);
    assert.equal(execution.status, 'succeeded', JSON.stringify(execution));
    const task = await h.task(execution.result.taskId);
    assert.equal(task.status, 'completed', 'the execution ended with its task');
    assert.deepEqual(execution.effect, { kind: 'work_task', id: task.id });
    assert.equal(execution.result.prUrl, task.prUrl);
    assert.ok(task.prUrl, 'a pull request was opened');
    const session = (await h.server.api('GET', `/api/sessions/${task.sessionId}`)).body;
    assert.ok(session.cost > 0);
    assert.equal(execution.cost, session.cost, "the execution costs what the task's session was charged");
    const tasks = (await h.server.api('GET', `/api/work-tasks?agentId=${agent.id}`)).body.tasks;
    assert.equal(tasks.length, 1, 'one task');
  });
});
