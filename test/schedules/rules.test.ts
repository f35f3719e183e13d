// Bulk actions (all or nothing), approval and denial with their WebSocket events, pause after 5
// failures in a row, no double run when a trigger and a tick race for the same due run, cancel.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { registerTenant, type Tenant } from '../agents/support.js';
import { createSchedule, executions, NOWHERE, READ_PROJECTS, setClock, settled, startScheduleServer } from './support.js';

describe('schedule rules', () => {
  let server: TestServer;
  let t: Tenant;
  before(async () => {
    server = await startScheduleServer();
    t = await registerTenant(server, 'acme');
    await setClock(server, { to: '2026-04-01T00:00:00.000Z' });
  });
  after(() => server.cleanup());

  it('bulk pause with one bad id changes nothing and reports each id; without it, applies to all', async () => {
    const a = await createSchedule(server, { name: 'a', intervalSeconds: 3600, action: READ_PROJECTS }, t.owner);
    const b = await createSchedule(server, { name: 'b', intervalSeconds: 3600, action: READ_PROJECTS }, t.owner);
    const bad = await server.api('POST', '/api/schedules/bulk', { key: t.owner, body: { action: 'pause', ids: [a.id, b.id, 'no-such-schedule'] } });
    assert.equal(bad.status, 404, bad.text);
    assert.match(bad.body.error, /no-such-schedule/);
    assert.deepEqual(bad.body.details.results.map((r: any) => [r.id, r.ok]), [[a.id, false], [b.id, false], ['no-such-schedule', false]]);
    assert.equal((await server.api('GET', `/api/schedules/${a.id}`, { key: t.owner })).body.status, 'active');
    const good = await server.api('POST', '/api/schedules/bulk', { key: t.owner, body: { action: 'pause', ids: [a.id, b.id] } });
    assert.equal(good.status, 200, good.text);
    assert.deepEqual(good.body.results, [{ id: a.id, ok: true, status: 'paused' }, { id: b.id, ok: true, status: 'paused' }]);
    const resumed = await server.api('POST', '/api/schedules/bulk', { key: t.owner, body: { action: 'resume', ids: [a.id] } });
    assert.equal(resumed.body.results[0].status, 'active');
    const deleted = await server.api('POST', '/api/schedules/bulk', { key: t.owner, body: { action: 'delete', ids: [a.id, b.id] } });
    assert.equal(deleted.status, 200);
    assert.equal((await server.api('GET', `/api/schedules/${b.id}`, { key: t.owner })).status, 404);
    const tooMany = await server.api('POST', '/api/schedules/bulk', { key: t.owner, body: { action: 'pause', ids: Array.from({ length: 51 }, (_, i) => `id-${i}`) } });
    assert.equal(tooMany.status, 400);
  });

  it('a destructive action waits for the owner: approve runs it, deny never does; the owner hears of it on the WebSocket', async () => {
    const project = await server.api('POST', '/api/projects', { key: t.owner, body: { name: 'doomed', workingDir: server.dataDir } });
    assert.equal(project.status, 201, project.text);
    const socket = await server.ws({ key: t.owner });
    socket.send({ type: 'subscribe', scheduleEvents: 'all' });
    await socket.next((m: any) => m.type === 'subscribed');
    const s = await createSchedule(server, { name: 'cleanup', intervalSeconds: 3600, action: { type: 'route', method: 'DELETE', path: `/api/projects/${project.body.id}` } }, t.operator);
    assert.equal(s.approval, 'owner_approve');
    const auto = await server.api('PUT', `/api/schedules/${s.id}`, { key: t.operator, body: { approval: 'auto' } });
    assert.equal(auto.status, 403, 'only the owner may let a destructive action run unapproved');

    const waiting = await server.api('POST', `/api/schedules/${s.id}/trigger`, { key: t.operator });
    assert.equal(waiting.status, 201, waiting.text);
    assert.equal(waiting.body.status, 'awaiting_approval');
    const request = await socket.next((m: any) => m.type === 'schedule_approval_request' && m.executionId === waiting.body.id);
    assert.equal(request.scheduleId, s.id);
    const byOperator = await server.api('POST', `/api/schedule-executions/${waiting.body.id}/resolve`, { key: t.operator, body: { decision: 'approve' } });
    assert.equal(byOperator.status, 403);
    const approved = await server.api('POST', `/api/schedule-executions/${waiting.body.id}/resolve`, { key: t.owner, body: { decision: 'approve' } });
    assert.equal(approved.status, 200, approved.text);
    await socket.next((m: any) => m.type === 'schedule_execution' && m.executionId === waiting.body.id && m.status === 'succeeded');
    assert.equal((await server.api('GET', `/api/projects/${project.body.id}`, { key: t.owner })).status, 404, 'the approved run deleted the project');

    await setClock(server, { advanceMs: 3_600_000 });
    const [due] = (await executions(server, s.id, t.owner)).filter((e) => e.status === 'awaiting_approval');
    const denied = await server.api('POST', `/api/schedule-executions/${due.id}/resolve`, { key: t.owner, body: { decision: 'deny', reason: 'not today' } });
    assert.equal(denied.status, 200);
    assert.equal(denied.body.status, 'denied');
    const again = await server.api('POST', `/api/schedule-executions/${due.id}/resolve`, { key: t.owner, body: { decision: 'approve' } });
    assert.equal(again.status, 409);
    await socket.close();
  });

  it('pauses a schedule after 5 failures in a row, naming the failure', async () => {
    const s = await createSchedule(server, { name: 'broken', intervalSeconds: 300, action: NOWHERE }, t.owner);
    for (let i = 1; i <= 5; i++) {
      await setClock(server, { advanceMs: 300_000 });
      const runs = await settled(server, s.id, i, ['failed'], t.owner);
      assert.equal(runs[0].errorCode, 'EXTENSION_UNAVAILABLE');
      assert.match(runs[0].error, /nobody serves GET \/api\/nothing-serves-this/);
      if (i === 4) {
        // Editing what does not change the run keeps the count: a rename does not save it from its pause.
        const renamed = await server.api('PUT', `/api/schedules/${s.id}`, { key: t.owner, body: { name: 'still broken', description: 'renamed' } });
        assert.equal(renamed.body.consecutiveFailures, 4, renamed.text);
      }
    }
    const paused = (await server.api('GET', `/api/schedules/${s.id}`, { key: t.owner })).body;
    assert.equal(paused.status, 'paused');
    assert.equal(paused.consecutiveFailures, 5);
    assert.match(paused.pausedReason, /5 consecutive failures/);
    await setClock(server, { advanceMs: 300_000 });
    assert.equal((await executions(server, s.id, t.owner)).length, 5, 'a paused schedule does not run');
  });

  it('a resume, or a change of what a schedule runs, starts its failure count again', async () => {
    const resumable = await createSchedule(server, { name: 'resumable', intervalSeconds: 300, action: NOWHERE }, t.owner);
    const fixable = await createSchedule(server, { name: 'fixable', intervalSeconds: 300, action: NOWHERE }, t.owner);
    await setClock(server, { advanceMs: 300_000 });
    await settled(server, resumable.id, 1, ['failed'], t.owner);
    await settled(server, fixable.id, 1, ['failed'], t.owner);
    const failures = async (id: string) => (await server.api('GET', `/api/schedules/${id}`, { key: t.owner })).body.consecutiveFailures;
    for (const action of ['pause', 'resume']) assert.equal((await server.api('POST', '/api/schedules/bulk', { key: t.owner, body: { action, ids: [resumable.id] } })).status, 200);
    assert.equal(await failures(resumable.id), 0);
    const fixed = await server.api('PUT', `/api/schedules/${fixable.id}`, { key: t.owner, body: { action: READ_PROJECTS } });
    assert.equal(fixed.body.consecutiveFailures, 0, fixed.text);
    const deleted = await server.api('POST', '/api/schedules/bulk', { key: t.owner, body: { action: 'delete', ids: [resumable.id, fixable.id] } });
    assert.equal(deleted.status, 200);
  });

  it('a trigger and a tick meeting at the same due run record it once, in either order and at once', async () => {
    const dueRuns = async (id: string, dueAt: string) => (await executions(server, id, t.owner)).filter((e) => e.dueAt === dueAt && e.trigger !== 'manual');
    // The trigger first: it records the due run itself; the tick after it finds nothing left to record.
    // The scheduler's own tick (every 100 ms here, on the test clock) may still reach the due run between
    // the clock's move and the trigger, or while the trigger runs (409): that round met in the other
    // order, and a new schedule tries again.
    let first: any;
    let triggered: any;
    for (let round = 1; ; round++) {
      first = await createSchedule(server, { name: `trigger first ${round}`, intervalSeconds: 600, action: READ_PROJECTS }, t.owner);
      await setClock(server, { to: first.nextRunAt, tick: false });
      triggered = await server.api('POST', `/api/schedules/${first.id}/trigger`, { key: t.owner });
      if (triggered.status === 409) assert.match(triggered.body.error, /was already recorded/);
      else assert.equal(triggered.status, 201, triggered.text);
      if (triggered.body.trigger === 'schedule' || round === 10) break;
    }
    assert.equal(triggered.status, 201, triggered.text);
    assert.deepEqual([triggered.body.dueAt, triggered.body.trigger], [first.nextRunAt, 'schedule'], 'the trigger took the due run');
    await setClock(server, { advanceMs: 0 });
    assert.equal((await dueRuns(first.id, first.nextRunAt)).length, 1);

    // The tick first: the due run is recorded by it; a trigger after it is a manual run of its own.
    const second = await createSchedule(server, { name: 'tick first', intervalSeconds: 600, action: READ_PROJECTS }, t.owner);
    await setClock(server, { to: second.nextRunAt });
    const manual = await server.api('POST', `/api/schedules/${second.id}/trigger`, { key: t.owner });
    assert.equal(manual.body.trigger, 'manual');
    assert.equal((await dueRuns(second.id, second.nextRunAt)).length, 1);

    // Both at once, for several schedules due together: each due run is recorded exactly once.
    await setClock(server, { advanceMs: 1_000 });
    const racing = [];
    for (let i = 0; i < 5; i++) racing.push(await createSchedule(server, { name: `race ${i}`, intervalSeconds: 600, action: READ_PROJECTS }, t.owner));
    await setClock(server, { to: racing[0].nextRunAt, tick: false });
    const [answers] = await Promise.all([
      Promise.all(racing.map((s) => server.api('POST', `/api/schedules/${s.id}/trigger`, { key: t.owner }))),
      setClock(server, { advanceMs: 0 }),
    ]);
    for (const [i, s] of racing.entries()) {
      assert.ok([201, 409].includes(answers[i]!.status), answers[i]!.text);
      const recorded = await dueRuns(s.id, s.nextRunAt);
      assert.equal(recorded.length, 1, `schedule ${i}: one run for ${s.nextRunAt}`);
      if (answers[i]!.status === 201 && answers[i]!.body.trigger === 'schedule') assert.equal(answers[i]!.body.id, recorded[0].id);
    }
    for (const s of [first, second, ...racing]) await settled(server, s.id, (await executions(server, s.id, t.owner)).length, ['succeeded'], t.owner);
  });

  it('cancels a waiting execution; a finished one cannot be cancelled', async () => {
    const s = await createSchedule(server, { name: 'to cancel', intervalSeconds: 3600, approval: 'owner_approve', action: READ_PROJECTS }, t.owner);
    const waiting = await server.api('POST', `/api/schedules/${s.id}/trigger`, { key: t.operator });
    assert.equal(waiting.body.status, 'awaiting_approval');
    const cancelled = await server.api('POST', `/api/schedule-executions/${waiting.body.id}/cancel`, { key: t.operator });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal((await server.api('POST', `/api/schedule-executions/${waiting.body.id}/cancel`, { key: t.operator })).status, 409);
  });

  it('holds queued executions while the operational mode is paused, and says so in the system state', async () => {
    const s = await createSchedule(server, { name: 'held', intervalSeconds: 3600, action: READ_PROJECTS }, t.owner);
    assert.equal((await server.api('POST', '/api/operational-mode', { body: { mode: 'paused' } })).status, 200);
    try {
      const state = await waitFor('the scheduler to learn the mode', async () => {
        const body = (await server.api('GET', '/api/scheduler/system-state', { key: t.owner })).body;
        return body.operationalMode === 'paused' ? body : undefined;
      });
      assert.equal(state.canRun, false);
      assert.match(state.blockers.join(' '), /operational mode is paused/);
      const run = await server.api('POST', `/api/schedules/${s.id}/trigger`, { key: t.owner });
      await setClock(server, { advanceMs: 1_000 });
      assert.equal((await server.api('GET', `/api/schedule-executions/${run.body.id}`, { key: t.owner })).body.status, 'queued');
    } finally {
      assert.equal((await server.api('POST', '/api/operational-mode', { body: { mode: 'normal' } })).status, 200);
    }
    await settled(server, s.id, 1, ['succeeded'], t.owner);
  });

  it('reports health and the live system state', async () => {
    const health = await server.api('GET', '/api/scheduler/health', { key: t.viewer });
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'leading');
    assert.equal(health.body.clock, 'test');
    assert.ok(health.body.tick.ticks > 0);
    assert.ok(health.body.failures.pausedSchedules >= 1);
    const state = await server.api('GET', '/api/scheduler/system-state', { key: t.owner });
    assert.equal(state.status, 200, state.text);
    assert.equal(state.body.operationalMode, 'normal');
    assert.equal(state.body.providers.sessions.available, true);
    assert.equal(typeof state.body.canRun, 'boolean');
  });
});
