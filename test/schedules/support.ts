// A real server whose scheduler runs on the test clock (ROOST_CLOCK=test), and helpers to drive it.
import assert from 'node:assert/strict';
import { startTestServer, type StartOptions, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

export const CLOCK_ENV = { ROOST_CLOCK: 'test', ROOST_EXT_SCHEDULES_TICK_MS: '100' };

export function startScheduleServer(options: StartOptions = {}): Promise<TestServer> {
  return startTestServer({ ...options, env: { ...CLOCK_ENV, ...options.env } });
}

/** Moves the scheduler's clock (and ticks, unless tick is false); answers the new time. */
export async function setClock(server: TestServer, move: { to?: string; advanceMs?: number; tick?: boolean }, key?: string): Promise<string> {
  const res = await server.api('POST', '/api/scheduler/test-clock', { body: move, key });
  assert.equal(res.status, 200, res.text);
  return res.body.now;
}

export async function createSchedule(server: TestServer, body: Record<string, unknown>, key?: string): Promise<any> {
  const res = await server.api('POST', '/api/schedules', { body, key });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** A cheap action that succeeds: reading the projects list. */
export const READ_PROJECTS = { type: 'route', method: 'GET', path: '/api/projects?limit=1' } as const;
/** An action whose target nobody serves: every run fails. */
export const NOWHERE = { type: 'route', method: 'GET', path: '/api/nothing-serves-this' } as const;

export async function executions(server: TestServer, scheduleId: string, key?: string): Promise<any[]> {
  const res = await server.api('GET', `/api/schedules/${scheduleId}/executions?limit=200`, { key });
  assert.equal(res.status, 200, res.text);
  return res.body.executions;
}

/** Waits until the schedule has `count` executions, all finished (or in one of `statuses`). */
export function settled(server: TestServer, scheduleId: string, count: number, statuses = ['succeeded', 'failed', 'denied', 'cancelled'], key?: string): Promise<any[]> {
  return waitFor(`${count} settled executions of schedule ${scheduleId}`, async () => {
    const list = await executions(server, scheduleId, key);
    return list.length === count && list.every((e) => statuses.includes(e.status)) ? list : undefined;
  }, 30_000);
}
