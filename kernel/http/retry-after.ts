// A 503 that knows when to come back says so: an error whose details carry `retryAfter` (seconds), such
// as EXTENSION_UNAVAILABLE for an extension that is still starting, gets the Retry-After header.
import type Koa from 'koa';

/** Run on the final answer (http/envelope.ts). */
export function addRetryAfter(ctx: Koa.Context): void {
  const { response } = ctx;
  if (response.status !== 503) return;
  const retryAfter = (response.body as { details?: { retryAfter?: unknown } } | null)?.details?.retryAfter;
  if (typeof retryAfter === 'number' && !response.get('Retry-After')) response.set('Retry-After', String(retryAfter));
}
