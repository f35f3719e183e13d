// A schedule runs an ordered list of actions (the seed's `actions`): each with its own result in the
// execution, stopping at the first failure unless that action says continueOnError; the approval rule
// looks at every action. The single `action` form keeps working as a list of one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { registerTenant, type Tenant } from '../agents/support.js';
import { createSchedule, NOWHERE, READ_PROJECTS, setClock, settled, startScheduleServer } from './support.js';

describe('schedules: a list of actions', () => {
  let server: TestServer;
  let t: Tenant;
  before(async () => {
    server = await startScheduleServer();
    t = await registerTenant(server, 'listers');
    await setClock(server, { to: '2026-06-01T00:00:00.000Z' });
  });
  after(() => server.cleanup());

  /** Triggers as the owner (so it runs at once) and waits for the run to end. */
  async function runOnce(body: Record<string, unknown>): Promise<{ schedule: any; execution: any }> {
    const schedule = await createSchedule(server, { intervalSeconds: 86_400, ...body }, t.owner);
    const triggered = await server.api('POST', `/api/schedules/${schedule.id}/trigger`, { key: t.owner });
    assert.equal(triggered.status, 201, triggered.text);
    const [execution] = await settled(server, schedule.id, 1, ['succeeded', 'failed'], t.owner);
    return { schedule, execution };
  }
  const makeProject = (name: string) => ({ type: 'route', method: 'POST', path: '/api/projects', body: { name, workingDir: server.dataDir } });

  it('runs every action in order, each with its own result', async () => {
    const { schedule, execution } = await runOnce({ name: 'three steps', actions: [READ_PROJECTS, makeProject('made by step two'), READ_PROJECTS] });
    assert.equal(schedule.actions.length, 3);
    assert.deepEqual(schedule.action, READ_PROJECTS, 'action is the first of actions');
    assert.equal(execution.status, 'succeeded', JSON.stringify(execution));
    assert.deepEqual(execution.results.map((r: any) => [r.index, r.type, r.status]), [[0, 'route', 'succeeded'], [1, 'route', 'succeeded'], [2, 'route', 'succeeded']]);
    assert.equal(execution.results[1].result.body.name, 'made by step two');
    assert.ok(execution.results[2].result.body.projects.some((p: any) => p.name === 'made by step two'), 'the third action saw what the second made');
    assert.deepEqual(execution.result, execution.results.map((r: any) => r.result), 'result: what each answered, in order');
  });

  it('stops at the first failure: the actions after it are skipped and the error names it', async () => {
    const { execution } = await runOnce({ name: 'breaks in the middle', actions: [READ_PROJECTS, NOWHERE, makeProject('never made')] });
    assert.equal(execution.status, 'failed');
    assert.equal(execution.errorCode, 'EXTENSION_UNAVAILABLE');
    assert.match(execution.error, /^actions\.1 \(route\): /);
    assert.deepEqual(execution.results.map((r: any) => r.status), ['succeeded', 'failed', 'skipped']);
    assert.equal(execution.results[1].errorCode, 'EXTENSION_UNAVAILABLE');
    assert.equal(execution.results[2].durationMs, null);
    const projects = (await server.api('GET', '/api/projects?limit=200', { key: t.owner })).body.projects;
    assert.ok(!projects.some((p: any) => p.name === 'never made'));
  });

  it('goes on past a failure of an action that says continueOnError, and the run succeeds', async () => {
    const { execution } = await runOnce({ name: 'best effort', actions: [{ ...NOWHERE, continueOnError: true }, makeProject('made after a failure')] });
    assert.equal(execution.status, 'succeeded', JSON.stringify(execution));
    assert.deepEqual(execution.results.map((r: any) => r.status), ['failed', 'succeeded']);
    assert.equal(execution.results[0].errorCode, 'EXTENSION_UNAVAILABLE');
    assert.equal(execution.result[0], null);
    assert.equal(execution.result[1].body.name, 'made after a failure');
  });

  it('waits for approval when any action is destructive, a later one included', async () => {
    const project = await server.api('POST', '/api/projects', { key: t.owner, body: { name: 'doomed later', workingDir: server.dataDir } });
    assert.equal(project.status, 201, project.text);
    const actions = [READ_PROJECTS, { type: 'route', method: 'DELETE', path: `/api/projects/${project.body.id}` }];
    const s = await createSchedule(server, { name: 'read then delete', intervalSeconds: 3600, actions }, t.operator);
    assert.equal(s.approval, 'owner_approve');
    const auto = await server.api('POST', '/api/schedules', { key: t.operator, body: { name: 'unapproved', intervalSeconds: 3600, approval: 'auto', actions } });
    assert.equal(auto.status, 403, auto.text);
    assert.match(auto.body.error, /actions\.1/);
    const waiting = await server.api('POST', `/api/schedules/${s.id}/trigger`, { key: t.operator });
    assert.equal(waiting.body.status, 'awaiting_approval');
    assert.deepEqual(waiting.body.actions, actions);
    assert.deepEqual(waiting.body.results, []);
    const approved = await server.api('POST', `/api/schedule-executions/${waiting.body.id}/resolve`, { key: t.owner, body: { decision: 'approve' } });
    assert.equal(approved.status, 200, approved.text);
    const [done] = await settled(server, s.id, 1, ['succeeded'], t.owner);
    assert.deepEqual(done.results.map((r: any) => r.status), ['succeeded', 'succeeded']);
    assert.equal((await server.api('GET', `/api/projects/${project.body.id}`, { key: t.owner })).status, 404);
  });

  it('keeps the single action form: a list of one, answered as before', async () => {
    const { schedule, execution } = await runOnce({ name: 'one thing', action: READ_PROJECTS });
    assert.deepEqual(schedule.action, READ_PROJECTS);
    assert.deepEqual(schedule.actions, [READ_PROJECTS]);
    assert.equal(execution.status, 'succeeded');
    assert.deepEqual(execution.action, READ_PROJECTS);
    assert.equal(execution.result.status, 'ok', 'result is the action\'s own, not a list');
    assert.ok(Array.isArray(execution.result.body.projects));
    assert.deepEqual(execution.results.map((r: any) => r.status), ['succeeded']);
    const changed = await server.api('PUT', `/api/schedules/${schedule.id}`, { key: t.owner, body: { actions: [READ_PROJECTS, READ_PROJECTS] } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.actions.length, 2);
    const back = await server.api('PUT', `/api/schedules/${schedule.id}`, { key: t.owner, body: { action: NOWHERE } });
    assert.deepEqual(back.body.actions, [NOWHERE], 'an update with action replaces the list with that one');
  });

  it('refuses a bad action in the list, naming its index', async () => {
    const post = (body: Record<string, unknown>) => server.api('POST', '/api/schedules', { key: t.owner, body: { name: 'bad', intervalSeconds: 3600, ...body } });
    const missing = await post({ actions: [READ_PROJECTS, { type: 'session', prompt: 'hi' }] });
    assert.equal(missing.status, 400, missing.text);
    assert.match(missing.body.error, /body\.actions\.1\.agentId is required/);
    const unknownType = await post({ actions: [READ_PROJECTS, READ_PROJECTS, { type: 'teleport' }] });
    assert.equal(unknownType.status, 400);
    assert.match(unknownType.body.error, /body\.actions\.2\.type/);
    const ownRoute = await post({ actions: [READ_PROJECTS, { type: 'route', method: 'GET', path: '/api/schedules' }] });
    assert.equal(ownRoute.status, 400);
    assert.match(ownRoute.body.error, /body\.actions\.1\.path/);
    const unknownAgent = await post({ actions: [READ_PROJECTS, { type: 'session', agentId: 'no-such-agent', prompt: 'hi' }] });
    assert.ok(unknownAgent.status >= 400 && unknownAgent.status < 500, unknownAgent.text);
    assert.match(unknownAgent.body.error, /body\.actions\.1\.agentId/);
    assert.equal((await post({ actions: [] })).status, 400, 'at least one action');
    assert.equal((await post({})).status, 400, 'action or actions is required');
    const both = await post({ action: READ_PROJECTS, actions: [READ_PROJECTS] });
    assert.equal(both.status, 400);
    assert.match(both.body.error, /action or actions, not both/);
  });
});
