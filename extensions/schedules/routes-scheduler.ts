// /api/scheduler: health and stats, the live system state, and the test clock.
import { notFound, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { requireInstanceOwner } from '../../sdk/roles.js';
import { TestClock } from './clock.js';
import { schemaPath } from './schemas.js';
import type { Scheduler } from './scheduler.js';
import { systemState } from './system-state.js';

type Counted = Array<{ status: string; n: number | string }>;

export const schedulerRoutes: Record<string, RouteHandler<Scheduler>> = {
  /** The tick of the whole scheduler, and the counts of the caller's tenant. */
  async 'GET /api/scheduler/health'(req, ctx, s) {
    const tenantId = req.auth.tenantId;
    const now = s.clock.now();
    const due = await ctx.db('schedules').where({ tenant_id: tenantId, status: 'active' }).where('next_run_at', '<=', now.toISOString()).count<Array<{ n: number | string }>>({ n: '*' });
    const byStatus = (await ctx.db('schedule_executions').where({ tenant_id: tenantId }).whereIn('status', ['queued', 'awaiting_approval', 'running']).groupBy('status').select('status').count({ n: '*' })) as Counted;
    const since = new Date(now.getTime() - 86_400_000).toISOString();
    const failed = await ctx.db('schedule_executions').where({ tenant_id: tenantId, status: 'failed' }).where('created_at', '>=', since).count<Array<{ n: number | string }>>({ n: '*' });
    const pausedByFailures = await ctx.db('schedules').where({ tenant_id: tenantId, status: 'paused' }).where('consecutive_failures', '>=', s.config.failureLimit).count<Array<{ n: number | string }>>({ n: '*' });
    const count = (status: string) => Number(byStatus.find((r) => r.status === status)?.n ?? 0);
    const { leader, ticks, lastTickAt, tickLagMs, tickDurationMs, dueLagMs, executionsRecorded, interrupted } = s.stats;
    return ok({
      status: leader ? 'leading' : 'standby',
      clock: s.clock.kind,
      now: now.toISOString(),
      operationalMode: s.operationalMode,
      tick: { intervalMs: s.config.tickMs, ticks, lastTickAt, tickLagMs, tickDurationMs, dueLagMs, executionsRecorded },
      due: Number(due[0]?.n ?? 0),
      queued: count('queued'),
      awaitingApproval: count('awaiting_approval'),
      running: count('running'),
      failures: { last24h: Number(failed[0]?.n ?? 0), pausedSchedules: Number(pausedByFailures[0]?.n ?? 0), interruptedSinceStart: interrupted },
      limits: { minIntervalSeconds: s.config.minIntervalSeconds, maxConcurrent: s.config.maxConcurrent, failureLimit: s.config.failureLimit, missedRunCap: s.config.missedRunCap, missedGraceSeconds: s.config.missedGraceSeconds },
    });
  },

  async 'GET /api/scheduler/system-state'(req, ctx, scheduler) {
    return ok(await systemState(ctx, scheduler, req.id, req.auth.tenantId));
  },

  /**
   * Only with ROOST_CLOCK=test (never in production): sets (`to`) or advances (`advanceMs`) the
   * scheduler's clock, then ticks (unless `tick: false`). The clock is the whole server's, so only the
   * instance owner moves it (as the workflows test clock); 404 on a real clock.
   */
  async 'POST /api/scheduler/test-clock'(req, ctx, s) {
    if (!(s.clock instanceof TestClock)) throw notFound('the test clock (this server runs on the system clock; ROOST_CLOCK=test enables it)');
    requireInstanceOwner(req.auth, 'moving the test clock');
    const body = validate<{ to?: string; advanceMs?: number; tick?: boolean }>(schemaPath(ctx, 'test-clock.json'), req.body);
    if (body.to !== undefined && Date.parse(body.to) < s.clock.now().getTime()) throw validationError(`body.to is before the clock's time ${s.clock.now().toISOString()}; the clock never goes back`);
    const now = await s.clock.move({ ...(body.to !== undefined ? { to: body.to } : {}), ...(body.advanceMs !== undefined ? { byMs: body.advanceMs } : {}) });
    if (body.tick !== false) await s.tickNow();
    return ok({ now: now.toISOString() });
  },
};
