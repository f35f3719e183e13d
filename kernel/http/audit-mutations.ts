// Every mutating request leaves an audit entry, and is not acknowledged without one. While appends
// fail, a mutation is refused before it runs (nothing is done); a mutation that succeeded but whose own
// entry cannot be written answers 507 (disk full) or 503 instead of its success, saying its change may
// have been made; the audit log counts that entry as lost, and `verify` names the loss.
import type Koa from 'koa';
import { isDiskFull, RoostError, toRoostError } from '../../protocol/errors.js';
import type { Kernel } from '../kernel.js';
import type { State } from './app.js';
import { isMutating } from './methods.js';

/** What this module uses of the kernel. */
export type AuditMutationDeps = Pick<Kernel, 'audit'>;

/** Seconds a client waits before retrying when the audit log's database did not answer. */
const RETRY_AFTER_SECONDS = 5;

export function auditMutations(kernel: AuditMutationDeps): Koa.Middleware<State> {
  return async (ctx, next) => {
    if (!isMutating(ctx.method)) return next();
    try {
      await kernel.audit.writable();
    } catch (err) {
      throw auditFailure(err);
    }
    let status = 0;
    let failure: unknown;
    try {
      await next();
      status = ctx.status;
    } catch (err) {
      failure = err;
      status = toRoostError(err).status;
    }
    const { identity, route } = ctx.state;
    const kernelRoute = (ctx as { _matchedRoute?: string })._matchedRoute;
    try {
      await kernel.audit.append({
        tenantId: identity?.tenantId || null,
        actor: identity?.actor ?? 'anonymous',
        action: route?.key ?? (kernelRoute ? `${ctx.method} ${kernelRoute}` : `${ctx.method} ${ctx.path}`),
        resource: ctx.path,
        detail: { status, ...(route ? { extension: route.owner } : {}) },
      });
    } catch (err) {
      // A request that failed keeps its own answer (the loss is counted all the same); one that succeeded is not acknowledged.
      if (failure === undefined && status < 400) throw auditFailure(err, status);
    }
    if (failure !== undefined) throw failure;
  };
}

/** The answer when the audit log cannot take an entry; `outcome` is the status the request had, when it ran. */
function auditFailure(err: unknown, outcome?: number): RoostError {
  const full = isDiskFull(err);
  const why = full ? 'the disk is full' : 'its database did not answer';
  const message = outcome === undefined
    ? `nothing was done: the audit log cannot record changes now (${why}); retry once it can`
    : `the audit entry of this request could not be written (${why}), so it is not acknowledged: it had answered ${outcome}, and its change may have been made; the loss is recorded in the audit log`;
  return new RoostError(full ? 'STORAGE_FULL' : 'AUDIT_UNAVAILABLE', message, {
    cause: err,
    details: { audit: 'not_recorded', ...(outcome === undefined ? {} : { outcome }), ...(full ? {} : { retryAfter: RETRY_AFTER_SECONDS }) },
  });
}
