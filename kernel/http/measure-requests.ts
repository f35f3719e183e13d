// How every REST request is recorded in the kernel's metrics (which an extension renders,
// read with `system_metrics`).
import type Koa from 'koa';
import type { KernelMetrics } from '../metrics.js';
import type { State } from './app.js';

/** The route pattern and owner a method and path name, when anything serves them. */
export type RouteOf = (method: string, path: string) => { pattern: string; owner: string } | undefined;

/**
 * Records an answered request under its route pattern: an extension's declaration or the kernel's
 * router path. A request refused before routing (401, 429, a browser-guard 403) is matched against the
 * route table here, so it counts under the route it named; what nothing serves is "unmatched".
 */
export function measureRequest(metrics: KernelMetrics, routeOf: RouteOf, ctx: Koa.ParameterizedContext<State>, started: number): void {
  const named = routeNamed(ctx, routeOf);
  metrics.observe(ctx.request.method, named?.pattern ?? 'unmatched', named?.owner ?? 'kernel', ctx.response.status, (performance.now() - started) / 1000);
}

/** The route an answered request was served under (the one it named, when it was refused before routing). */
export function routeNamed(ctx: Koa.ParameterizedContext<State>, routeOf: RouteOf): { pattern: string; owner: string } | undefined {
  const { route } = ctx.state;
  const kernelRoute = (ctx as { _matchedRoute?: string })._matchedRoute;
  return route ? { pattern: route.decl.path, owner: route.owner } : kernelRoute ? { pattern: kernelRoute, owner: 'kernel' } : routeOf(ctx.request.method, ctx.request.path);
}
