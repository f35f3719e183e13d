// /api/a2a/remotes: the servers a tenant talks to over A2A. Anyone of the tenant may list them; only an
// owner registers, changes or removes one. A remote is reached within the tenant's reach like any URL
// (sdk/reach.ts): one whose address is outside it is refused when registered. The API key
// is write-only.
import { notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, noContent, ok } from '../../sdk/http.js';
import { requireRole } from '../../sdk/roles.js';
import { schema } from './context.js';
import { forgetDirectory } from './directory.js';
import { blockedAddress, parseHttpUrl, refusedAddress } from '../../sdk/outbound.js';
import { portOf, reachFor, reachPolicy } from '../../sdk/reach.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { RemoteStore, baseOf } from './remotes.js';
import { Sealer } from '../../sdk/sealed.js';

/** The remote's base URL, refused (403) when it names an address the tenant may not reach; a name is checked again as it resolves. */
function remoteUrl(ctx: ExtensionContext, tenantId: string, raw: string): string {
  const url = parseHttpUrl(raw);
  const reach = reachFor(reachPolicy(ctx), tenantId, portOf(url));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (blockedAddress(host, reach)) throw refusedAddress(host, reach);
  return baseOf(url);
}

export const remoteRoutes: Record<string, RouteHandler> = {
  async 'GET /api/a2a/remotes'(req, ctx) {
    return ok({ remotes: await new RemoteStore(ctx.db).list(req.auth.tenantId) });
  },

  async 'POST /api/a2a/remotes'(req, ctx) {
    requireRole(req.auth, 'owner', 'registering a remote server');
    const body = validate<{ name: string; url: string; apiKey?: string }>(schema(ctx, 'remote-create.json'), req.body);
    const url = remoteUrl(ctx, req.auth.tenantId, body.url);
    const remote = await new RemoteStore(ctx.db).create(req.auth.tenantId, { ...body, url }, await Sealer.forExtension(ctx.host));
    ctx.host.audit('a2a.remote.create', `a2a-remote:${remote.id}`, { name: remote.name, url: remote.url });
    return created(remote);
  },

  async 'GET /api/a2a/remotes/:id'(req, ctx) {
    const remote = await new RemoteStore(ctx.db).get(req.auth.tenantId, req.params.id!);
    if (!remote) throw notFound(`remote ${req.params.id}`);
    return ok(remote);
  },

  async 'PUT /api/a2a/remotes/:id'(req, ctx) {
    requireRole(req.auth, 'owner', 'changing a remote server');
    const body = validate<{ name?: string; url?: string; apiKey?: string | null }>(schema(ctx, 'remote-update.json'), req.body);
    const change = { ...body, ...(body.url !== undefined ? { url: remoteUrl(ctx, req.auth.tenantId, body.url) } : {}) };
    const remote = await new RemoteStore(ctx.db).update(req.auth.tenantId, req.params.id!, change, await Sealer.forExtension(ctx.host));
    if (!remote) throw notFound(`remote ${req.params.id}`);
    forgetDirectory(req.auth.tenantId, remote.id);
    ctx.host.audit('a2a.remote.update', `a2a-remote:${remote.id}`, { name: remote.name, url: remote.url, apiKeyChanged: body.apiKey !== undefined });
    return ok(remote);
  },

  async 'DELETE /api/a2a/remotes/:id'(req, ctx) {
    requireRole(req.auth, 'owner', 'removing a remote server');
    if (!(await new RemoteStore(ctx.db).delete(req.auth.tenantId, req.params.id!))) throw notFound(`remote ${req.params.id}`);
    forgetDirectory(req.auth.tenantId, req.params.id!);
    ctx.host.audit('a2a.remote.delete', `a2a-remote:${req.params.id}`, {});
    return noContent();
  },
};
