// Tenants, roles and bad input on the schedules routes, and svc_manage_schedule through the MCP SDK client.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { agentToken, callTool, createAgent, FIXTURES, mcpClient, registerTenant, type Tenant } from '../agents/support.js';
import { createSchedule, READ_PROJECTS, setClock, settled, startScheduleServer } from './support.js';

describe('schedules: access and input', () => {
  let server: TestServer;
  let a: Tenant;
  let b: Tenant;
  before(async () => {
    server = await startScheduleServer({ env: { ROOST_EXTENSION_DIRS: FIXTURES } });
    a = await registerTenant(server, 'alpha');
    b = await registerTenant(server, 'beta');
    await setClock(server, { to: '2026-05-01T00:00:00.000Z' });
  });
  after(() => server.cleanup());

  it("another tenant's schedule and execution answer 404 everywhere, like unknown ids", async () => {
    const s = await createSchedule(server, { name: 'alpha only', intervalSeconds: 3600, action: READ_PROJECTS }, a.owner);
    const run = await server.api('POST', `/api/schedules/${s.id}/trigger`, { key: a.owner });
    assert.equal(run.status, 201);
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/api/schedules/${s.id}`], ['PUT', `/api/schedules/${s.id}`, { name: 'x' }], ['DELETE', `/api/schedules/${s.id}`],
      ['POST', `/api/schedules/${s.id}/trigger`], ['GET', `/api/schedules/${s.id}/executions`], ['GET', `/api/usage/schedule/${s.id}`],
      ['GET', `/api/schedule-executions/${run.body.id}`], ['POST', `/api/schedule-executions/${run.body.id}/cancel`],
      ['POST', `/api/schedule-executions/${run.body.id}/resolve`, { decision: 'deny' }],
    ];
    for (const [method, path, body] of calls) {
      const res = await server.api(method, path, { key: b.owner, ...(body ? { body } : {}) });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.code, 'NOT_FOUND');
    }
    assert.equal((await server.api('GET', '/api/schedules', { key: b.owner })).body.schedules.length, 0);
    assert.equal((await server.api('GET', '/api/schedule-executions', { key: b.owner })).body.executions.length, 0);
    const bulk = await server.api('POST', '/api/schedules/bulk', { key: b.owner, body: { action: 'delete', ids: [s.id] } });
    assert.equal(bulk.status, 404);
    assert.equal((await server.api('GET', `/api/schedules/${s.id}`, { key: a.owner })).status, 200, 'still there for its tenant');
    const filtered = await server.api('GET', '/api/schedules?agentId=nobody', { key: a.owner });
    assert.equal(filtered.body.schedules.length, 0);
  });

  it('refuses bad input with a clear error and stores nothing', async () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: 'x', cron: 'not a cron', action: READ_PROJECTS }, /cron/],
      [{ name: 'x', cron: '* * * * *', action: READ_PROJECTS }, /minimum interval is 300/],
      [{ name: 'x', intervalSeconds: 60, action: READ_PROJECTS }, /at least 300/],
      [{ name: 'x', cron: '0 * * * *', timezone: 'Mars/Olympus', action: READ_PROJECTS }, /time zone/],
      [{ name: 'x', cron: '0 * * * *', intervalSeconds: 3600, action: READ_PROJECTS }, /either cron/],
      [{ name: 'x', action: READ_PROJECTS }, /either cron/],
      [{ name: 'x', intervalSeconds: 3600, action: { type: 'route', method: 'GET', path: '/api/schedules' } }, /own routes/],
      [{ name: 'x', intervalSeconds: 3600, action: { type: 'route', method: 'GET', path: '/api/../x' } }, /\.\./],
      [{ name: 'x', intervalSeconds: 3600, action: { type: 'session', agentId: 'a' } }, /prompt/],
      [{ name: 'x', intervalSeconds: 3600, action: { type: 'launch-missiles' } }, /type/],
      [{ name: 'x'.repeat(201), intervalSeconds: 3600, action: READ_PROJECTS }, /name/],
      [{ name: 'x', intervalSeconds: 3600, action: { type: 'session', agentId: 'a', prompt: 'p'.repeat(100_001) } }, /prompt/],
    ];
    for (const [body, why] of bad) {
      const res = await server.api('POST', '/api/schedules', { key: a.owner, body });
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.match(res.body.error, why);
    }
    const nested = await server.api('POST', '/api/schedules', { key: a.owner, raw: `{"name":"x","intervalSeconds":3600,"action":{"type":"route","method":"POST","path":"/api/projects","body":${'['.repeat(200)}${']'.repeat(200)}}}`, headers: { 'content-type': 'application/json' } });
    assert.equal(nested.status, 400, nested.text);
    const huge = await server.api('POST', '/api/schedules', { key: a.owner, raw: JSON.stringify({ name: 'x', intervalSeconds: 3600, action: { ...READ_PROJECTS, body: 'y'.repeat(1_100_000) } }), headers: { 'content-type': 'application/json' } });
    assert.equal(huge.status, 413);
    const malformed = await server.api('POST', '/api/schedules', { key: a.owner, raw: '{"name":', headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
    const viewer = await server.api('POST', '/api/schedules', { key: a.viewer, body: { name: 'x', intervalSeconds: 3600, action: READ_PROJECTS } });
    assert.equal(viewer.status, 403);
    const foreign = await server.api('POST', '/api/schedules', { key: a.owner, headers: { origin: 'https://evil.example' }, body: { name: 'x', intervalSeconds: 3600, action: READ_PROJECTS } });
    assert.equal(foreign.status, 403);
    for (const key of [a.operator, a.owner]) {
      // The clock is the whole server's: a tenant's owner is not the instance owner.
      const clock = await server.api('POST', '/api/scheduler/test-clock', { key, body: { advanceMs: 86_400_000 } });
      assert.equal(clock.status, 403, clock.text);
      assert.match(clock.body.error, /instance owner/);
    }
    assert.equal((await server.api('GET', '/api/schedules', { key: a.owner })).body.schedules.length, 1, 'only the schedule of the previous test');
  });

  it('a route action reaches only routes served over HTTP: an internal route is as unknown as over HTTP', async () => {
    const s = await createSchedule(server, { name: 'sneaky', intervalSeconds: 3600, action: { type: 'route', method: 'POST', path: '/api/credits/reservations', body: { microUnits: 1 } } }, a.owner);
    const run = await server.api('POST', `/api/schedules/${s.id}/trigger`, { key: a.owner });
    assert.equal(run.status, 201, run.text);
    const [failed] = await settled(server, s.id, 1, ['failed'], a.owner);
    assert.equal(failed.errorCode, 'EXTENSION_UNAVAILABLE');
    assert.match(failed.error, /nobody serves POST \/api\/credits\/reservations/);
    assert.equal((await server.api('DELETE', `/api/schedules/${s.id}`, { key: a.owner })).status, 204);
  });

  it('svc_manage_schedule works through the MCP SDK client for an agent granted it, and only then', async () => {
    const granted = await createAgent(server, a.owner, { name: 'planner', mcp_tool_permissions: ['svc_manage_schedule'] });
    const plain = await createAgent(server, a.owner, { name: 'plain' });
    const client = await mcpClient(server, await agentToken(server, a.owner, granted.id));
    try {
      const made = await callTool(client, 'svc_manage_schedule', { action: 'create', schedule: { name: 'by agent', intervalSeconds: 3600, action: READ_PROJECTS } });
      assert.equal(made.isError, false, made.text);
      const id = made.value.id;
      assert.equal((await callTool(client, 'svc_manage_schedule', { action: 'get', schedule_id: id })).value.name, 'by agent');
      assert.ok((await callTool(client, 'svc_manage_schedule', { action: 'list' })).value.some((s: any) => s.id === id));
      assert.equal((await callTool(client, 'svc_manage_schedule', { action: 'update', schedule_id: id, schedule: { name: 'renamed' } })).value.name, 'renamed');
      assert.equal((await callTool(client, 'svc_manage_schedule', { action: 'pause', schedule_id: id })).value.status, 'paused');
      assert.equal((await callTool(client, 'svc_manage_schedule', { action: 'resume', schedule_id: id })).value.status, 'active');
      assert.equal((await callTool(client, 'svc_manage_schedule', { action: 'trigger', schedule_id: id })).value.trigger, 'manual');
      const auto = await callTool(client, 'svc_manage_schedule', { action: 'create', schedule: { name: 'rm', intervalSeconds: 3600, approval: 'auto', action: { type: 'route', method: 'DELETE', path: '/api/projects/x' } } });
      assert.equal(auto.isError, true);
      assert.match(auto.text, /owner role/);
      const bad = await callTool(client, 'svc_manage_schedule', { action: 'create', schedule: { name: 'fast', intervalSeconds: 5, action: READ_PROJECTS } });
      assert.equal(bad.isError, true);
      assert.match(bad.text, /at least 300/);
      assert.equal((await callTool(client, 'svc_manage_schedule', { action: 'get' })).isError, true);
      assert.equal((await callTool(client, 'svc_manage_schedule', { action: 'delete', schedule_id: id })).value.deleted, id);
      assert.equal((await callTool(client, 'svc_manage_schedule', { action: 'get', schedule_id: id })).isError, true);
    } finally {
      await client.close();
    }
    const other = await mcpClient(server, await agentToken(server, a.owner, plain.id));
    try {
      const refused = await callTool(other, 'svc_manage_schedule', { action: 'list' });
      assert.equal(refused.isError, true);
      assert.match(refused.text, /mcp_tool_permissions|privileged|not granted/i);
    } finally {
      await other.close();
    }
  });

  it("svc_manage_schedule answers not found for another tenant's schedule_id, and changes nothing", async () => {
    const theirs = await createSchedule(server, { name: 'beta only', intervalSeconds: 3600, action: READ_PROJECTS }, b.owner);
    const agent = await createAgent(server, a.owner, { name: 'nosy', mcp_tool_permissions: ['svc_manage_schedule'] });
    const client = await mcpClient(server, await agentToken(server, a.owner, agent.id));
    try {
      for (const args of [
        { action: 'get' }, { action: 'update', schedule: { name: 'stolen' } }, { action: 'pause' }, { action: 'resume' }, { action: 'trigger' }, { action: 'delete' },
      ]) {
        const res = await callTool(client, 'svc_manage_schedule', { ...args, schedule_id: theirs.id });
        assert.equal(res.isError, true, `${args.action}: ${res.text}`);
        assert.match(res.text, /not found/i, args.action);
      }
      assert.ok(!(await callTool(client, 'svc_manage_schedule', { action: 'list' })).value.some((x: any) => x.id === theirs.id));
    } finally {
      await client.close();
    }
    const after = (await server.api('GET', `/api/schedules/${theirs.id}`, { key: b.owner })).body;
    assert.deepEqual([after.name, after.status], ['beta only', 'active']);
    assert.equal((await server.api('GET', `/api/schedules/${theirs.id}/executions`, { key: b.owner })).body.executions.length, 0, 'never triggered');
  });

  it("a WebSocket client gets no schedule stream of another tenant: refused by id, absent from its tenant's stream", async () => {
    const theirs = await createSchedule(server, { name: 'beta stream', intervalSeconds: 3600, action: READ_PROJECTS }, b.owner);
    const spy = await server.ws({ key: a.owner });
    const owner = await server.ws({ key: b.owner });
    try {
      spy.send({ type: 'subscribe', scheduleId: theirs.id });
      const refused = await spy.next((m: any) => m.type === 'error' || m.type === 'subscribed');
      assert.equal(refused.type, 'error', JSON.stringify(refused));
      spy.send({ type: 'subscribe', scheduleEvents: 'all' });
      await spy.next((m: any) => m.type === 'subscribed');
      owner.send({ type: 'subscribe', scheduleEvents: 'all' });
      await owner.next((m: any) => m.type === 'subscribed');
      const mine = await createSchedule(server, { name: 'alpha marker', intervalSeconds: 3600, action: READ_PROJECTS }, a.owner);
      assert.equal((await server.api('POST', `/api/schedules/${theirs.id}/trigger`, { key: b.owner })).status, 201);
      await owner.next((m: any) => m.type === 'schedule_execution' && m.scheduleId === theirs.id && m.status === 'succeeded', 30_000);
      // The spy's own tenant's next event comes after beta's: had beta's reached it, it would come first.
      assert.equal((await server.api('POST', `/api/schedules/${mine.id}/trigger`, { key: a.owner })).status, 201);
      const seen = await spy.next((m: any) => m.type === 'schedule_execution' || (m.type === 'schedule_updated' && m.scheduleId === theirs.id), 30_000);
      assert.equal(seen.scheduleId, mine.id, `another tenant's update reached the spy: ${JSON.stringify(seen)}`);
    } finally {
      await spy.close();
      await owner.close();
    }
  });
});
