// /api/schedule-executions: list, one, approve or deny, cancel.
import { conflict, notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../_shared/extension.js';
import { ok, page, queryString } from '../_shared/http.js';
import { requireRole } from '../_shared/roles.js';
import { announceExecution } from './announce.js';
import type { Execution } from './executions.js';
import { schemaPath } from './schemas.js';
import { stores } from './service.js';
import { scheduler } from './state.js';

async function mustGet(ctx: ExtensionContext, req: RouteRequest): Promise<Execution> {
  const execution = await stores(ctx).executions.get(req.auth.tenantId, req.params.id!);
  if (!execution) throw notFound(`schedule execution ${req.params.id}`);
  return execution;
}

export const executionRoutes: Record<string, RouteHandler> = {
  async 'GET /api/schedule-executions'(req, ctx) {
    return ok(await stores(ctx).executions.list(req.auth.tenantId, { ...page(req.query), scheduleId: queryString(req.query, 'scheduleId'), status: queryString(req.query, 'status') }));
  },

  async 'GET /api/schedule-executions/:id'(req, ctx) {
    return ok(await mustGet(ctx, req));
  },

  /** The owner approves (the run is queued) or denies (it never runs) an execution awaiting approval. */
  async 'POST /api/schedule-executions/:id/resolve'(req, ctx) {
    requireRole(req.auth, 'owner', 'approving or denying a scheduled run');
    const { decision, reason } = validate<{ decision: 'approve' | 'deny'; reason?: string }>(schemaPath(ctx, 'resolve.json'), req.body);
    const execution = await mustGet(ctx, req);
    const patch = decision === 'approve' ? { resolved_by: req.auth.actor } : { resolved_by: req.auth.actor, error_code: 'DENIED', error: reason ?? `denied by ${req.auth.actor}`, finished_at: scheduler().clock.now().toISOString() };
    const after = await stores(ctx).executions.transition(execution.id, ['awaiting_approval'], decision === 'approve' ? 'queued' : 'denied', patch, scheduler().clock.now());
    if (!after) throw conflict(`schedule execution ${execution.id} is ${execution.status}, not awaiting_approval`);
    announceExecution(ctx.host, after);
    ctx.host.audit(`schedule_execution.${decision}`, `schedule-execution:${execution.id}`, { scheduleId: execution.scheduleId, reason: reason ?? null });
    if (decision === 'approve') scheduler().kick();
    else await scheduler().syncWake();
    return ok(after);
  },

  /** Cancels a waiting or running execution; a session it started is stopped. */
  async 'POST /api/schedule-executions/:id/cancel'(req, ctx) {
    const execution = await mustGet(ctx, req);
    const now = scheduler().clock.now();
    const after = await stores(ctx).executions.transition(execution.id, ['awaiting_approval', 'queued', 'running'], 'cancelled', {
      error_code: 'CANCELLED', error: `cancelled by ${req.auth.actor}`, finished_at: now.toISOString(),
    }, now);
    if (!after) throw conflict(`schedule execution ${execution.id} is ${execution.status}; only a waiting or running one can be cancelled`);
    scheduler().runner.abort(execution.id);
    let sessionStopped: boolean | null = null;
    if (after.sessionId) {
      const stop = await ctx.host.call('POST', `/api/sessions/${encodeURIComponent(after.sessionId)}/stop`, {}, { requestId: req.id });
      sessionStopped = stop.status < 300;
    }
    announceExecution(ctx.host, after);
    await scheduler().syncWake();
    return ok({ ...after, sessionStopped });
  },
};
