// The kernel's own routes. Extensions may not declare any of these.
import Router from '@koa/router';
import type { Kernel } from '../../kernel.js';
import type { State } from '../app.js';
import { registerAuditRoutes } from './audit.js';
import { KERNEL_ROUTE_DOCS } from './kernel-docs.js';
import { registerPluginRoutes } from './plugins.js';
import type { HealthRoutes } from './health.js';
import { registerSystemRoutes } from './system.js';
import { registerTenantRoutes } from './tenants.js';

const PUBLIC = new Set(['GET /api/health', 'GET /health/live', 'GET /health/ready', 'POST /api/tenants/register']);

export function isKernelPublicRoute(method: string, path: string): boolean {
  return PUBLIC.has(`${method === 'HEAD' ? 'GET' : method} ${path}`);
}

/** `health`: the health routes' answers, which the fast front (http/fast-front.ts) serves too. */
export function registerKernelRoutes(router: Router<State>, k: Kernel, health: HealthRoutes): void {
  registerSystemRoutes(router, k, health);
  registerTenantRoutes(router, k);
  registerPluginRoutes(router, k);
  registerAuditRoutes(router, k);
  assertEveryRouteDeclared(router);
}

/**
 * The kernel's routes are named twice, here (the router) and in kernel-docs.ts (what the OpenAPI document
 * says of them): a route one of them names and the other does not stops the start, naming it.
 */
export function assertEveryRouteDeclared(router: Router<State>): void {
  const served = new Set(router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`)));
  const undeclared = [...served].filter((key) => !KERNEL_ROUTE_DOCS[key]);
  const unserved = Object.keys(KERNEL_ROUTE_DOCS).filter((key) => !served.has(key));
  if (undeclared.length + unserved.length === 0) return;
  throw new Error(`the kernel's routes and kernel-docs.ts disagree:${undeclared.map((key) => ` ${key} has no entry in kernel-docs.ts;`).join('')}${unserved.map((key) => ` ${key} is in kernel-docs.ts but no kernel route;`).join('')}`);
}

/** The methods the kernel's own routes serve at this path. */
export function kernelMethodsFor(router: Router<State>, path: string): string[] {
  return router.match(path, 'GET').path.flatMap((layer) => layer.methods);
}

/** True when the kernel already serves this method and path (so no extension may claim it). */
export function kernelServes(router: Router<State>, method: string, path: string): boolean {
  return router.stack.some((layer) => layer.methods.includes(method) && layer.path === path);
}
