// Schedules, measured on the shipped server with its test clock (ROOST_CLOCK=test): 1,000 schedules
// due in the same minute, each calling a cheap route (GET /api/projects?limit=1).
// 1. tick overhead: the tick that records the 1,000 due runs (one execution row each, in batches) and
//    starts the first of them, and an idle tick over the same 1,000 schedules when none is due;
// 2. lag of the last execution: from the clock reaching the due time to the 1,000th run finished,
//    with at most ROOST_EXT_SCHEDULES_MAX_CONCURRENT (here 50) executions at once.
import { startTestServer } from '../helpers/server.js';
import { reporter } from './lib/report.js';

const report = reporter('schedules');
const SCHEDULES = 1_000;
const CONCURRENT = 50;

const server = await startTestServer({ env: { ROOST_CLOCK: 'test', ROOST_EXT_SCHEDULES_TICK_MS: '60000', ROOST_EXT_SCHEDULES_MAX_CONCURRENT: String(CONCURRENT) } });
const api = async (method: string, path: string, body?: unknown) => {
  const res = await server.api(method, path, body === undefined ? {} : { body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};
const tickDuration = async () => (await api('GET', '/api/scheduler/health')).tick.tickDurationMs as number;

try {
  await api('POST', '/api/scheduler/test-clock', { to: '2026-01-01T00:00:00.000Z' });
  for (let i = 0; i < SCHEDULES; i += 25) {
    await Promise.all(Array.from({ length: 25 }, (_, j) => api('POST', '/api/schedules', { name: `s${i + j}`, intervalSeconds: 300, action: { type: 'route', method: 'GET', path: '/api/projects?limit=1' } })));
  }
  await api('POST', '/api/scheduler/test-clock', { advanceMs: 60_000 });
  const idle = await tickDuration();

  const t0 = performance.now();
  await api('POST', '/api/scheduler/test-clock', { advanceMs: 240_000 });
  const recorded = performance.now() - t0;
  const dueTick = await tickDuration();
  let lastDone = 0;
  for (;;) {
    const done = await api('GET', '/api/schedule-executions?status=succeeded&limit=1&total=true');
    if (done.total >= SCHEDULES) {
      lastDone = performance.now() - t0;
      break;
    }
    const failed = await api('GET', '/api/schedule-executions?status=failed&limit=1&total=true');
    if (failed.total > 0) throw new Error(`${failed.total} executions failed: ${JSON.stringify(failed.executions[0])}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  report('tick recording 1,000 due schedules', dueTick, 'ms', 'none set (measured)', { perScheduleUs: (dueTick * 1000) / SCHEDULES, clockMoveToRecordedMs: recorded });
  report('idle tick over 1,000 schedules (none due)', idle, 'ms', 'none set (measured)');
  report('lag of the last of 1,000 executions due in the same minute', lastDone, 'ms', 'none set (measured)', { maxConcurrent: CONCURRENT, perExecutionMs: lastDone / SCHEDULES });
} finally {
  await server.cleanup();
}
