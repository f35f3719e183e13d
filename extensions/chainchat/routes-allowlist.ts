// The allowlist: who may talk to the agents on-chain. Owner entries (the owner's own addresses) are
// added and changed by owners only.
import { conflict, notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, noContent, ok, page } from '../../sdk/http.js';
import { requireRole } from '../../sdk/roles.js';
import { mustBeAddress } from './addresses.js';
import { schema } from './routes.js';
import type { State } from './state.js';

export const allowlistRoutes: Record<string, RouteHandler<State>> = {
  async 'GET /api/allowlist'(req, _ctx, s) {
    return ok(await s.allowlist.list(req.auth.tenantId, page(req.query)));
  },

  async 'POST /api/allowlist'(req, ctx, s) {
    const body = validate<{ address: string; label?: string; owner?: boolean }>(schema(ctx, 'allowlist-add.json'), req.body);
    mustBeAddress(body.address, 'body.address');
    if (body.owner) requireRole(req.auth, 'owner', "adding an owner's address");
    const list = s.allowlist;
    if (!(await list.add(req.auth.tenantId, { address: body.address, label: body.label ?? '', owner: body.owner ?? false }))) throw conflict(`${body.address} is on the allowlist already`);
    ctx.host.audit('chainchat.allowlist_added', `address:${body.address}`, { owner: body.owner ?? false });
    return created(await list.get(req.auth.tenantId, body.address));
  },

  async 'PUT /api/allowlist/:address'(req, ctx, s) {
    const change = validate<{ label?: string; owner?: boolean }>(schema(ctx, 'allowlist-update.json'), req.body);
    const list = s.allowlist;
    const current = await list.get(req.auth.tenantId, req.params.address!);
    if (!current) throw notFound(`allowlist entry ${req.params.address}`);
    if (change.owner !== undefined && change.owner !== current.owner) requireRole(req.auth, 'owner', "changing whether an address is the owner's");
    const entry = await list.update(req.auth.tenantId, current.address, change);
    ctx.host.audit('chainchat.allowlist_updated', `address:${current.address}`, change);
    return ok(entry);
  },

  async 'DELETE /api/allowlist/:address'(req, ctx, s) {
    const list = s.allowlist;
    const current = await list.get(req.auth.tenantId, req.params.address!);
    if (!current) throw notFound(`allowlist entry ${req.params.address}`);
    if (current.owner) requireRole(req.auth, 'owner', "removing an owner's address");
    await list.remove(req.auth.tenantId, current.address);
    ctx.host.audit('chainchat.allowlist_removed', `address:${current.address}`, {});
    return noContent();
  },
};
