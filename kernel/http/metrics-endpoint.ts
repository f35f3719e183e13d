// GET /metrics in Prometheus' text format, for the instance owner or a scraper holding the metrics key
// (ROOST_METRICS_KEY) — never for anyone else; and the middleware that records every REST request.
import { createHash, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import { forbidden, RoostError } from '../../protocol/errors.js';
import { bearerToken } from '../auth/identity.js';
import { DEFAULT_TENANT } from '../auth/keys.js';
import type { Kernel } from '../kernel.js';
import type { KernelMetrics } from '../metrics.js';
import type { State } from './app.js';

export const METRICS_PATH = '/metrics';

/** The route pattern and owner a method and path name, when anything serves them. */
export type RouteOf = (method: string, path: string) => { pattern: string; owner: string } | undefined;

/**
 * Records each answered request under its route pattern: an extension's declaration or the kernel's
 * router path. A request refused before routing (401, 429, a browser-guard 403) is matched against the
 * route table here, so it counts under the route it named; what nothing serves is "unmatched".
 */
export function measureRequests(metrics: KernelMetrics, routeOf: RouteOf): Koa.Middleware<State> {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const { route } = ctx.state;
      const kernelRoute = (ctx as { _matchedRoute?: string })._matchedRoute;
      const named = route ? { pattern: route.decl.path, owner: route.owner } : kernelRoute ? { pattern: kernelRoute, owner: 'kernel' } : ctx.path === METRICS_PATH ? { pattern: METRICS_PATH, owner: 'kernel' } : routeOf(ctx.method, ctx.path);
      metrics.observe(ctx.method, named?.pattern ?? 'unmatched', named?.owner ?? 'kernel', ctx.status, (performance.now() - started) / 1000);
    }
  };
}

/** Answers /metrics before authentication: the metrics key is no API key, so it is checked here. */
export function metricsEndpoint(kernel: Kernel, metrics: KernelMetrics): Koa.Middleware<State> {
  const key = kernel.config.metricsKey;
  return async (ctx, next) => {
    if (ctx.path !== METRICS_PATH) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new RoostError('METHOD_NOT_ALLOWED', `${METRICS_PATH} takes GET`);
    }
    const bearer = bearerToken(ctx.req);
    if (!(key && bearer && sameSecret(bearer, key))) {
      const identity = await kernel.auth.identify(ctx.req).catch(async (err: unknown) => {
        await kernel.rateLimiter.take(`ip:${ctx.ip}`); // as elsewhere: a refused key costs its address a token
        throw err;
      });
      if (identity.tenantId !== DEFAULT_TENANT || identity.role !== 'owner') {
        throw forbidden(`${METRICS_PATH} is for the instance owner, or a scraper with the metrics key (ROOST_METRICS_KEY)`);
      }
    }
    ctx.type = metrics.contentType;
    ctx.body = await metrics.render();
  };
}

/** Equal in constant time whatever the lengths (hashes first: timingSafeEqual wants equal lengths). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
