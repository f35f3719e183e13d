// The live server's extensions: list, load, unload, grant and revoke (instance owner only); each change
// is announced, so other instances on the same PostgreSQL database apply it too (host/plugin-changes.ts).
import { isAbsolute } from 'node:path';
import type Router from '@koa/router';
import { validationError } from '../../../protocol/errors.js';
import { validate } from '../../../protocol/validate.js';
import { requireInstanceOwner } from '../../auth/identity.js';
import { announcePluginChange } from '../../host/plugin-changes.js';
import { dependentsOf } from '../../host/dependencies.js';
import type { Extension } from '../../host/registry.js';
import type { Kernel } from '../../kernel.js';
import type { State } from '../app.js';

/** What this module uses of the kernel. */
export type PluginRouteDeps = Pick<Kernel, 'audit' | 'bus' | 'registry' | 'routes'>;

export function registerPluginRoutes(router: Router<State>, k: PluginRouteDeps): void {
  const describe = (ext: Extension) => ({
    name: ext.manifest.name,
    version: ext.manifest.version,
    description: ext.manifest.description,
    dir: ext.manifest.dir,
    state: ext.state,
    pid: ext.state === 'running' ? (ext.process?.pid ?? null) : null,
    activation: ext.manifest.server?.activation ?? 'eager',
    capabilities: { requested: Object.keys(ext.manifest.capabilities).filter((c) => ext.manifest.capabilities[c]), granted: [...ext.grants].sort() },
    routes: ext.state === 'unloaded' ? [] : k.routes.routesOf(ext.manifest.name),
    tools: ext.manifest.server?.tools.map((t) => t.name) ?? [],
    ws: ext.manifest.server?.ws ?? [],
    requires: ext.manifest.server?.requires ?? [],
    uses: ext.manifest.server?.uses ?? [],
    dependents: dependentsOf(ext.manifest.name, k.registry.list()),
    schemaVersion: ext.schemaVersion,
    restarts: ext.restarts,
    startedAt: ext.startedAt ?? null,
    lastError: ext.lastError ?? null,
  });

  router.get('/api/plugins', (ctx) => {
    ctx.body = { plugins: k.registry.list().map(describe) };
  });

  router.post('/api/plugins/load', async (ctx) => {
    requireInstanceOwner(ctx.state.identity);
    const body = validate<{ path?: string; name?: string }>('api/plugin-load.json', ctx.request.body);
    // A name re-loads an extension the server knows (404 otherwise); a path must not depend on the server's cwd.
    if (body.path !== undefined && !isAbsolute(body.path)) throw validationError(`body.path must be an absolute path, got "${body.path}"`);
    const ext = await k.registry.load(body.path ?? k.registry.get(body.name!).manifest.name);
    announcePluginChange(k.bus, { action: 'load', name: ext.manifest.name, dir: ext.manifest.dir });
    ctx.status = 201;
    ctx.body = describe(ext);
  });

  // ?force=true: a change that would strand the extensions requiring this one is made anyway (unload: they are unloaded first).
  const forced = (query: Record<string, unknown>) => validate<{ force?: string }>('api/plugin-force.json', { ...query }, 'query').force === 'true';

  router.post('/api/plugins/:name/unload', async (ctx) => {
    requireInstanceOwner(ctx.state.identity);
    const force = forced(ctx.query);
    for (const name of await k.registry.unload(ctx.params.name!, force)) announcePluginChange(k.bus, { action: 'unload', name });
    ctx.body = describe(k.registry.get(ctx.params.name!));
  });

  for (const action of ['grant', 'revoke'] as const) {
    router.post(`/api/plugins/:name/${action}`, async (ctx) => {
      const { identity } = ctx.state;
      requireInstanceOwner(identity);
      const { capability } = validate<{ capability: string }>('api/plugin-grant.json', ctx.request.body);
      const force = action === 'revoke' && forced(ctx.query);
      const ext = await k.registry.setGrant(ctx.params.name!, capability, action === 'grant', force);
      announcePluginChange(k.bus, { action, name: ext.manifest.name, capability });
      k.audit.append({ tenantId: identity.tenantId, actor: identity.actor, action: `grant.capability_${action === 'grant' ? 'granted' : 'revoked'}`, resource: `extension:${ext.manifest.name}`, detail: { capability } });
      ctx.body = describe(ext);
    });
  }
}
