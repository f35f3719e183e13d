// Runs waiting for the owner's approval do not wait forever: a newer run of the schedule supersedes the
// older waiting one, and a run left unanswered past its approval window expires (even when the answer
// comes before the tick notices). The owner hears of each on the WebSocket.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { registerTenant, type Tenant } from '../agents/support.js';
import { createSchedule, executions, READ_PROJECTS, setClock, settled, startScheduleServer } from './support.js';

describe('schedules: approval windows', () => {
  let server: TestServer;
  let t: Tenant;
  before(async () => {
    server = await startScheduleServer();
    t = await registerTenant(server, 'approvers');
    await setClock(server, { to: '2026-05-04T00:00:00.000Z' });
  });
  after(() => server.cleanup());

  const resolve = (id: string, decision: string) => server.api('POST', `/api/schedule-executions/${id}/resolve`, { key: t.owner, body: { decision } });
  const get = async (id: string) => (await server.api('GET', `/api/schedule-executions/${id}`, { key: t.owner })).body;

  it('a newer waiting run supersedes the older one; an unanswered one expires at the end of its window', async () => {
    const socket = await server.ws({ key: t.owner });
    socket.send({ type: 'subscribe', scheduleEvents: 'all' });
    await socket.next((m: any) => m.type === 'subscribed');
    const s = await createSchedule(server, { name: 'needs a yes', intervalSeconds: 600, approval: 'owner_approve', approvalWindowSeconds: 3600, missedPolicy: 'skip', action: READ_PROJECTS }, t.owner);
    assert.equal(s.approvalWindowSeconds, 3600);

    await setClock(server, { advanceMs: 600_000 });
    const [first] = await executions(server, s.id, t.owner);
    assert.equal(first.status, 'awaiting_approval');
    assert.equal(first.expiresAt, '2026-05-04T01:10:00.000Z', 'recorded at 00:10, it waits an hour');

    await setClock(server, { advanceMs: 600_000 });
    const superseded = await socket.next((m: any) => m.type === 'schedule_execution' && m.executionId === first.id && m.status === 'expired');
    assert.equal(superseded.execution.errorCode, 'SUPERSEDED');
    const [second] = (await executions(server, s.id, t.owner)).filter((e) => e.status === 'awaiting_approval');
    assert.equal(second.dueAt, '2026-05-04T00:20:00.000Z', 'only the latest run waits');
    const late = await resolve(first.id, 'approve');
    assert.equal(late.status, 409, 'a superseded run is not run');

    assert.equal((await server.api('POST', '/api/schedules/bulk', { key: t.owner, body: { action: 'pause', ids: [s.id] } })).status, 200);
    await setClock(server, { to: '2026-05-04T01:20:00.000Z' });
    const expired = await socket.next((m: any) => m.type === 'schedule_execution' && m.executionId === second.id && m.status === 'expired');
    assert.equal(expired.execution.errorCode, 'APPROVAL_EXPIRED');
    assert.match(expired.execution.error, /nobody approved the run before 2026-05-04T01:20:00.000Z/);
    assert.equal((await resolve(second.id, 'approve')).status, 409);
    const health = (await server.api('GET', '/api/scheduler/health', { key: t.owner })).body;
    assert.equal(health.awaitingApproval, 0, 'nothing piles up');
    await socket.close();
  });

  it('an answer that comes after the window, before any tick saw it, expires the run instead of running it', async () => {
    // Runs every two days: its next run does not come within the day the test moves the clock on.
    const s = await createSchedule(server, { name: 'default window', intervalSeconds: 172_800, approval: 'owner_approve', action: READ_PROJECTS }, t.owner);
    const waiting = await server.api('POST', `/api/schedules/${s.id}/trigger`, { key: t.operator });
    assert.equal(waiting.body.status, 'awaiting_approval');
    assert.equal(Date.parse(waiting.body.expiresAt) - Date.parse(waiting.body.createdAt), 86_400_000, 'the default window is a day');
    await setClock(server, { advanceMs: 86_400_000, tick: false });
    const res = await resolve(waiting.body.id, 'approve');
    assert.equal(res.status, 409, res.text);
    assert.match(res.body.error, /expired/);
    const after = await get(waiting.body.id);
    assert.equal(after.status, 'expired');
    assert.equal(after.errorCode, 'APPROVAL_EXPIRED');
  });

  it('an answer within the window runs the run', async () => {
    const s = await createSchedule(server, { name: 'answered in time', intervalSeconds: 86_400, approval: 'owner_approve', approvalWindowSeconds: 600, action: READ_PROJECTS }, t.owner);
    const waiting = await server.api('POST', `/api/schedules/${s.id}/trigger`, { key: t.operator });
    await setClock(server, { advanceMs: 599_000 });
    const approved = await resolve(waiting.body.id, 'approve');
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.expiresAt, null);
    const [done] = await settled(server, s.id, 1, ['succeeded'], t.owner);
    assert.equal(done.id, waiting.body.id);
    const bad = await server.api('PUT', `/api/schedules/${s.id}`, { key: t.owner, body: { approvalWindowSeconds: 5 } });
    assert.equal(bad.status, 400, 'a window under a minute is refused');
  });
});
