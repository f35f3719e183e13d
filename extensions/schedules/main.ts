// The schedules extension: schedules, their executions and approvals, the scheduler tick, usage.
import { runExtension } from '../../sdk/extension.js';
import { CANCEL_TOPIC } from './announce.js';
import { openClock } from './clock.js';
import { schedulerConfig } from './config.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { Scheduler } from './scheduler.js';
import { tools } from './tools.js';

const MODES = ['normal', 'queued', 'paused'];

runExtension({
  migrations,
  routes,
  tools,
  async setup(ctx) {
    const clock = await openClock(ctx.db);
    if (clock.kind === 'test') ctx.host.log('warn', 'schedules: ROOST_CLOCK=test — the scheduler runs on a test clock that only moves through POST /api/scheduler/test-clock');
    const s = new Scheduler(ctx, schedulerConfig(ctx), clock);
    const mode = ctx.init.config?.operationalMode;
    if (typeof mode === 'string' && MODES.includes(mode)) s.operationalMode = mode;
    await s.syncWake();
    s.start();
    return s;
  },
  event({ topic, payload }, _ctx, scheduler) {
    const executionId = (payload as { executionId?: unknown } | null)?.executionId;
    if (topic === CANCEL_TOPIC && typeof executionId === 'string') return scheduler.runner.abort(executionId);
    const mode = (payload as { mode?: unknown } | null)?.mode;
    if (topic === 'system.operational_mode' && typeof mode === 'string' && MODES.includes(mode)) {
      scheduler.operationalMode = mode;
      if (mode !== 'paused') scheduler.kick();
    }
  },
  async shutdown(_ctx, scheduler) {
    await scheduler.stop();
  },
});
