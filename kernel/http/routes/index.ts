// The kernel's own routes. Extensions may not declare any of these.
import Router from '@koa/router';
import type { Kernel } from '../../kernel.js';
import type { State } from '../app.js';
import { openApiDocument } from '../openapi.js';
import { registerAuditRoutes } from './audit.js';
import { registerPluginRoutes } from './plugins.js';
import { registerSystemRoutes } from './system.js';
import { registerTenantRoutes } from './tenants.js';

const PUBLIC = new Set(['GET /api/health', 'GET /health/live', 'GET /health/ready', 'POST /api/tenants/register']);

export function isKernelPublicRoute(method: string, path: string): boolean {
  return PUBLIC.has(`${method === 'HEAD' ? 'GET' : method} ${path}`);
}

export function registerKernelRoutes(router: Router<State>, k: Kernel): void {
  registerSystemRoutes(router, k);
  registerTenantRoutes(router, k);
  registerPluginRoutes(router, k);
  registerAuditRoutes(router, k);
  router.get('/api/openapi.json', (ctx) => {
    ctx.body = openApiDocument(k, router);
  });
}

/** The methods the kernel's own routes serve at this path. */
export function kernelMethodsFor(router: Router<State>, path: string): string[] {
  return router.match(path, 'GET').path.flatMap((layer) => layer.methods);
}

/** True when the kernel already serves this method and path (so no extension may claim it). */
export function kernelServes(router: Router<State>, method: string, path: string): boolean {
  return router.stack.some((layer) => layer.methods.includes(method) && layer.path === path);
}
