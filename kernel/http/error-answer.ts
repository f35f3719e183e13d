// The one error shape of the REST front: a thrown error becomes its status and its JSON body
// (RoostError.toBody), with the headers its code calls for; an internal error is logged with its stack,
// a full disk with what to do; a refused key or a refused read is recorded in the audit trail (refused
// mutations are recorded by audit-mutations.ts).
import type Koa from 'koa';
import { diskFullLine, toRoostError } from '../../protocol/errors.js';
import type { Kernel } from '../kernel.js';
import { isMutating } from './methods.js';
import type { State } from './app.js';

/** What this module uses of the kernel. */
export type ErrorAnswerDeps = Pick<Kernel, 'audit' | 'log'>;

export function answerError(kernel: ErrorAnswerDeps, ctx: Koa.ParameterizedContext<State>, err: unknown): void {
  const error = toRoostError(err);
  const logged = { requestId: ctx.state.requestId };
  if (error.code === 'INTERNAL') kernel.log('error', `${ctx.request.method} ${ctx.request.path}: ${err instanceof Error ? err.stack : String(err)}`, logged);
  else if (error.code === 'STORAGE_FULL') kernel.log('warn', `${ctx.request.method} ${ctx.request.path}: ${diskFullLine(err)}`, logged);
  ctx.response.status = error.status;
  ctx.response.body = error.toBody();
  if (error.status === 401) ctx.response.set('WWW-Authenticate', 'Bearer realm="roost"');
  if (error.code === 'RATE_LIMITED') ctx.response.set('Retry-After', String((error.details as { retryAfter: number }).retryAfter));
  if (error.code === 'AUTH_REQUIRED' || error.code === 'INVALID_API_KEY') {
    kernel.audit.append({ tenantId: null, actor: ctx.request.ip || 'unknown', action: 'auth.failure', resource: `${ctx.request.method} ${ctx.request.path}`, detail: { code: error.code } });
  } else if (error.code === 'FORBIDDEN' && !isMutating(ctx.request.method)) {
    // Refused mutations are in the trail already (auditMutations); refused reads are recorded here.
    const { identity } = ctx.state;
    kernel.audit.append({ tenantId: identity?.tenantId || null, actor: identity?.actor ?? (ctx.request.ip || 'unknown'), action: 'auth.forbidden', resource: `${ctx.request.method} ${ctx.request.path}`, detail: { code: error.code } });
  }
  if (error.code === 'RATE_LIMITED' || error.code === 'PAYLOAD_TOO_LARGE') ctx.response.set('Connection', 'close');
}
