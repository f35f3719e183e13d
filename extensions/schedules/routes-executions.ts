// /api/schedule-executions: list, one, approve or deny, cancel.
import { conflict, notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { ok, page, queryString } from '../../sdk/http.js';
import { requireRole } from '../../sdk/roles.js';
import { stopEffect } from '../../sdk/effects.js';
import { announceExecution, CANCEL_TOPIC } from './announce.js';
import { expireUnanswered, toExecution, type Execution } from './executions.js';
import { schemaPath } from './schemas.js';
import { stores } from './service.js';
import type { Scheduler } from './scheduler.js';
import { sessionsClient } from '../sessions/contract.js';

async function mustGet(ctx: ExtensionContext, req: RouteRequest): Promise<Execution> {
  const execution = await stores(ctx).executions.get(req.auth.tenantId, req.params.id!);
  if (!execution) throw notFound(`schedule execution ${req.params.id}`);
  return execution;
}

export const executionRoutes: Record<string, RouteHandler<Scheduler>> = {
  async 'GET /api/schedule-executions'(req, ctx) {
    return ok(await stores(ctx).executions.list(req.auth.tenantId, { ...page(req.query), scheduleId: queryString(req.query, 'scheduleId'), status: queryString(req.query, 'status') }));
  },

  async 'GET /api/schedule-executions/:id'(req, ctx) {
    return ok(await mustGet(ctx, req));
  },

  /**
   * The owner approves (the run is queued) or denies (it never runs) an execution awaiting approval.
   * One whose approval window passed is expired, not run (409).
   */
  async 'POST /api/schedule-executions/:id/resolve'(req, ctx, scheduler) {
    requireRole(req.auth, 'owner', 'approving or denying a scheduled run');
    const { decision, reason } = validate<{ decision: 'approve' | 'deny'; reason?: string }>(schemaPath(ctx, 'resolve.json'), req.body);
    const execution = await mustGet(ctx, req);
    const now = scheduler.clock.now();
    if (execution.status === 'awaiting_approval' && execution.expiresAt !== null && Date.parse(execution.expiresAt) <= now.getTime()) {
      for (const row of await expireUnanswered(ctx.db, now)) announceExecution(ctx.host, toExecution(row));
      throw conflict(`schedule execution ${execution.id} expired at ${execution.expiresAt} unanswered; it will not run`);
    }
    const patch = decision === 'approve'
      ? { resolved_by: req.auth.actor, expires_at: null }
      : { resolved_by: req.auth.actor, error_code: 'DENIED', error: reason ?? `denied by ${req.auth.actor}`, finished_at: now.toISOString() };
    const after = await stores(ctx).executions.transition(execution.id, ['awaiting_approval'], decision === 'approve' ? 'queued' : 'denied', patch, now);
    if (!after) throw conflict(`schedule execution ${execution.id} is ${(await stores(ctx).executions.get(req.auth.tenantId, execution.id))?.status ?? execution.status}, not awaiting_approval`);
    announceExecution(ctx.host, after);
    ctx.host.audit(`schedule_execution.${decision}`, `schedule-execution:${execution.id}`, { scheduleId: execution.scheduleId, reason: reason ?? null });
    if (decision === 'approve') scheduler.kick();
    else await scheduler.syncWake();
    return ok(after);
  },

  /**
   * Cancels a waiting or running execution; what it started (a session, a council launch, a work task,
   * a workflow run) is stopped. The instance running it, this one or another, aborts it: directly, and
   * through the bus (`schedules.cancel`, delivered to this extension on every instance).
   */
  async 'POST /api/schedule-executions/:id/cancel'(req, ctx, scheduler) {
    const execution = await mustGet(ctx, req);
    const now = scheduler.clock.now();
    const after = await stores(ctx).executions.transition(execution.id, ['awaiting_approval', 'queued', 'running'], 'cancelled', {
      error_code: 'CANCELLED', error: `cancelled by ${req.auth.actor}`, finished_at: now.toISOString(),
    }, now);
    if (!after) throw conflict(`schedule execution ${execution.id} is ${execution.status}; only a waiting or running one can be cancelled`);
    scheduler.runner.abort(execution.id);
    if (execution.status === 'running') ctx.host.emit(CANCEL_TOPIC, { executionId: execution.id }, req.auth.tenantId);
    let sessionStopped: boolean | null = null;
    if (after.sessionId) {
      const stop = await sessionsClient(ctx.host, { requestId: req.id }).stop(after.sessionId);
      sessionStopped = stop.status < 300;
    }
    if (after.effect) await stopEffect(ctx.host, { requestId: req.id }, after.effect.kind, after.effect.id);
    announceExecution(ctx.host, after);
    await scheduler.syncWake();
    return ok({ ...after, sessionStopped });
  },
};
