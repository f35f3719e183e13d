// Executions that last: a schedule runs a real workflow that waits on a webhook, so an execution runs
// until the test answers it. At most MAX_CONCURRENT run at once; the operational mode `paused` holds
// the queued ones even when a running one ends; a cancel right after a trigger never leaves what the
// run started going; an action that runs over the execution time-out fails TIMEOUT and is stopped.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { untilNode } from '../workflows/support.js';
import { createSchedule, setClock, startScheduleServer } from './support.js';

/** A workflow whose runs wait for a webhook call. */
async function waitingWorkflow(server: TestServer): Promise<string> {
  const res = await server.api('POST', '/api/workflows', {
    body: {
      name: `waits-${Math.random().toString(36).slice(2, 8)}`,
      nodes: [{ id: 's', type: 'start' }, { id: 'h', type: 'webhook' }, { id: 'e', type: 'end', config: { output: '{{nodes.h.output.body.said}}' } }],
      edges: [{ from: 's', to: 'h' }, { from: 'h', to: 'e' }],
    },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

const execution = async (server: TestServer, id: string) => (await server.api('GET', `/api/schedule-executions/${id}`)).body;

function untilExecution(server: TestServer, id: string, done: (e: any) => boolean, what: string): Promise<any> {
  return waitFor(`execution ${id} ${what}`, async () => {
    const e = await execution(server, id);
    return done(e) ? e : undefined;
  }, 30_000);
}

async function trigger(server: TestServer, scheduleId: string): Promise<any> {
  const res = await server.api('POST', `/api/schedules/${scheduleId}/trigger`);
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Answers the webhook of the workflow run an execution started. */
async function answer(server: TestServer, e: any, said: string): Promise<void> {
  const hook = await untilNode(server, e.effect.id, 'h', (n) => n.status === 'waiting');
  const res = await server.api('POST', `${hook.webhook.path}?token=${hook.webhook.token}`, { body: { said } });
  assert.equal(res.status, 202, res.text);
}

const running = (e: any) => e.status === 'running' && e.effect?.kind === 'workflow';

describe('schedules: one execution at a time, held while paused, cancelled early', () => {
  let server: TestServer;
  let workflowId: string;
  before(async () => {
    server = await startScheduleServer({ env: { ROOST_EXT_SCHEDULES_MAX_CONCURRENT: '1' } });
    await setClock(server, { to: '2026-03-01T00:00:00.000Z' });
    workflowId = await waitingWorkflow(server);
  });
  after(() => server.cleanup());

  const schedule = (name: string) => createSchedule(server, { name, intervalSeconds: 86_400, action: { type: 'workflow', workflowId, input: {} } });

  it('runs at most MAX_CONCURRENT executions; the next starts when one ends, and each lasts until its run ends', async () => {
    const [a, b] = [await schedule('first'), await schedule('second')];
    const first = await untilExecution(server, (await trigger(server, a.id)).id, running, 'to run its workflow');
    const second = await trigger(server, b.id);
    await setClock(server, { advanceMs: 0 });
    assert.equal((await execution(server, second.id)).status, 'queued', 'the one slot is taken');
    const state = (await server.api('GET', '/api/scheduler/system-state')).body;
    assert.deepEqual(state.slots, { max: 1, free: 0 });

    await answer(server, first, 'one');
    const done = await untilExecution(server, first.id, (e) => e.status === 'succeeded', 'to succeed');
    assert.equal(done.result.status, 'completed');
    assert.equal(done.result.output, 'one');
    assert.equal(done.result.runId, first.effect.id);
    assert.equal(done.cost, 0, 'a workflow of webhooks costs nothing');
    assert.ok(done.durationMs >= 0);
    const next = await untilExecution(server, second.id, running, 'to take the free slot');
    await answer(server, next, 'two');
    await untilExecution(server, second.id, (e) => e.status === 'succeeded', 'to succeed');
  });

  it('holds the queued executions when the mode is paused, even as a running one ends', async () => {
    const [a, b] = [await schedule('runs'), await schedule('waits')];
    const first = await untilExecution(server, (await trigger(server, a.id)).id, running, 'to run its workflow');
    const second = await trigger(server, b.id);
    assert.equal((await server.api('POST', '/api/operational-mode', { body: { mode: 'paused' } })).status, 200);
    try {
      await waitFor('the scheduler to learn the mode', async () => ((await server.api('GET', '/api/scheduler/system-state')).body.operationalMode === 'paused' ? true : undefined));
      await answer(server, first, 'done');
      await untilExecution(server, first.id, (e) => e.status === 'succeeded', 'to succeed');
      await waitFor('the finished run to leave its slot', async () => ((await server.api('GET', '/api/scheduler/health')).body.running === 0 ? true : undefined));
      await setClock(server, { advanceMs: 0 });
      assert.equal((await execution(server, second.id)).status, 'queued', 'paused: nothing starts');
    } finally {
      assert.equal((await server.api('POST', '/api/operational-mode', { body: { mode: 'normal' } })).status, 200);
    }
    const resumed = await untilExecution(server, second.id, running, 'to run once the mode is normal');
    await answer(server, resumed, 'later');
    await untilExecution(server, second.id, (e) => e.status === 'succeeded', 'to succeed');
  });

  it('a cancel right after each trigger leaves no workflow run going', async () => {
    const s = await schedule('cancelled at once');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      await setClock(server, { advanceMs: 1, tick: false });
      const e = await trigger(server, s.id);
      ids.push(e.id);
      const cancelled = await server.api('POST', `/api/schedule-executions/${e.id}/cancel`);
      assert.equal(cancelled.status, 200, cancelled.text);
    }
    for (const id of ids) assert.equal((await execution(server, id)).status, 'cancelled');
    await waitFor('no execution to run', async () => ((await server.api('GET', '/api/scheduler/health')).body.running === 0 ? true : undefined));
    // The runs of the earlier tests completed; a run a cancelled execution started can only be cancelled.
    const runs = await waitFor('every run the executions started to be stopped', async () => {
      const list = (await server.api('GET', `/api/workflows/${workflowId}/runs?limit=100`)).body.runs as any[];
      return list.every((r) => r.status !== 'running') ? list : undefined;
    }, 30_000);
    assert.ok(runs.every((r) => ['completed', 'cancelled'].includes(r.status)), JSON.stringify(runs.map((r) => r.status)));
  });
});

describe('schedules: the execution time-out', () => {
  let server: TestServer;
  before(async () => {
    server = await startScheduleServer({ env: { ROOST_EXT_SCHEDULES_EXECUTION_TIMEOUT_SECONDS: '2' } });
    await setClock(server, { to: '2026-03-01T00:00:00.000Z' });
  });
  after(() => server.cleanup());

  it('fails an action that runs over it with TIMEOUT, and stops what it started', async () => {
    const workflowId = await waitingWorkflow(server);
    const s = await createSchedule(server, { name: 'slow', intervalSeconds: 86_400, action: { type: 'workflow', workflowId } });
    const e = await trigger(server, s.id);
    const failed = await untilExecution(server, e.id, (x) => x.status === 'failed', 'to time out');
    assert.equal(failed.errorCode, 'TIMEOUT');
    assert.match(failed.error, /ran over 2 s/);
    await waitFor('its workflow run to be cancelled', async () => {
      const runs = (await server.api('GET', `/api/workflows/${workflowId}/runs`)).body.runs as any[];
      return runs.every((r) => r.status === 'cancelled') ? true : undefined;
    }, 30_000);
    assert.equal((await server.api('GET', `/api/schedules/${s.id}`)).body.consecutiveFailures, 1, 'a time-out is a failure of the schedule');
  });
});
