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
    }
    const paused = (await server.api('GET', `/api/schedules/${s.id}`, { key: t.owner })).body;
    assert.equal(paused.status, 'paused');
    assert.equal(paused.consecutiveFailures, 5);
    assert.match(paused.pausedReason, /5 consecutive failures/);
    await setClock(server, { advanceMs: 300_000 });
    assert.equal((await executions(server, s.id, t.owner)).length, 5, 'a paused schedule does not run');
  });

  it('a trigger and a tick racing for the same due run record it once', async () => {
    const s = await createSchedule(server, { name: 'race', intervalSeconds: 600, action: READ_PROJECTS }, t.owner);
    await setClock(server, { to: s.nextRunAt, tick: false });
    const [trigger] = await Promise.all([
      server.api('POST', `/api/schedules/${s.id}/trigger`, { key: t.owner }),
      setClock(server, { advanceMs: 0 }),
    ]);
    assert.ok(trigger.status === 201 || trigger.status === 409, trigger.text);
    const runs = await settled(server, s.id, 1, ['succeeded'], t.owner);
    assert.equal(runs[0].dueAt, s.nextRunAt);
    // A trigger when nothing is due is a manual run of its own.
    const manual = await server.api('POST', `/api/schedules/${s.id}/trigger`, { key: t.owner });
    assert.equal(manual.body.trigger, 'manual');
    await settled(server, s.id, 2, ['succeeded'], t.owner);
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
