// What every request koa serves gets around everything else, in one middleware (a layer of koa's chain
// costs a promise and a dispatch per request): its X-Request-Id, the caller's address, the one error
// shape, Retry-After on a 503 that knows when to come back, then its metrics and access record once it
// is answered.
import type Koa from 'koa';
import type { Kernel } from '../kernel.js';
import type { AccessLog } from './access-log.js';
import type { State } from './app.js';
import { answerError } from './error-answer.js';
import { measureRequest, type RouteOf } from './measure-requests.js';
import { requestIdFor } from './request-id.js';
import { addRetryAfter } from './retry-after.js';

/** What this module uses of the kernel. */
export type EnvelopeDeps = Pick<Kernel, 'audit' | 'auth' | 'log' | 'metrics'>;

export function envelope(kernel: EnvelopeDeps, access: AccessLog | undefined, routeOf: RouteOf): Koa.Middleware<State> {
  return async (ctx, next) => {
    const started = performance.now();
    const { req, request, response, state } = ctx;
    const given = req.headers['x-request-id'];
    // What the kernel logs for this request, and what an extension logs while serving it, carries the id.
    state.requestId = requestIdFor(typeof given === 'string' ? given : undefined);
    response.set('X-Request-Id', state.requestId);
    // The caller's address from here on: the forwarded client's behind a trusted proxy.
    request.ip = kernel.auth.clients.of(req);
    try {
      await next();
    } catch (err) {
      answerError(kernel, ctx, err);
    } finally {
      addRetryAfter(ctx);
      measureRequest(kernel.metrics, routeOf, ctx, started);
      access?.record({ method: request.method, path: request.path, status: response.status, started, tenant: state.identity?.tenantId || '-', requestId: state.requestId, client: request.ip });
    }
  };
}
