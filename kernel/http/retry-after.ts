// A 503 that knows when to come back says so: an error whose details carry `retryAfter` (seconds), such
// as EXTENSION_UNAVAILABLE for an extension that is still starting, gets the Retry-After header.
import type Koa from 'koa';

export function retryAfterHeader(): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    const retryAfter = (ctx.body as { details?: { retryAfter?: unknown } } | null)?.details?.retryAfter;
    if (ctx.status === 503 && typeof retryAfter === 'number' && !ctx.response.get('Retry-After')) ctx.set('Retry-After', String(retryAfter));
  };
}
