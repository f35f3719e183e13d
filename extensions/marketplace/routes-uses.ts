// Recording uses of a listing, with escrow for paid ones (see uses.ts), and settling them.
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../_shared/extension.js';
import { created, ok } from '../_shared/http.js';
import { checkAgent, schema, visibleListing } from './common.js';
import { holdEscrow, settleEscrow } from './escrow-client.js';
import { toUse, UseStore, type Outcome, type UseRow } from './uses.js';

async function settle(ctx: ExtensionContext, req: RouteRequest, useId: string, outcome: Outcome, reason: string): Promise<UseRow> {
  const store = new UseStore(ctx.db);
  const { row, previous } = await store.claim(req.auth.tenantId, useId, outcome, reason);
  if (row.escrow_id) {
    try {
      await settleEscrow(ctx, req.id, row.escrow_id, outcome === 'success' ? 'release' : 'refund');
    } catch (err) {
      await store.unclaim(row.id, previous);
      throw err;
    }
  }
  const listing = await ctx.db('listings').where({ id: row.listing_id }).first('agent_id');
  // The seller's tenant hears how its listing did (the reputation extension records it for the agent).
  ctx.host.emit('marketplace.use', { useId: row.id, listingId: row.listing_id, agentId: listing?.agent_id ?? null, outcome, reason }, row.listing_tenant_id);
  return row;
}

export const useRoutes: Record<string, RouteHandler> = {
  async 'POST /api/marketplace/listings/:id/use'(req, ctx) {
    const body = validate<{ agentId?: string; outcome?: Outcome; reason?: string }>(schema(ctx, 'use.json'), req.body ?? {});
    const listing = await visibleListing(ctx, req);
    const price = Number(listing.price_micro_units);
    let escrowId: string | null = null;
    if (price > 0) {
      if (!body.agentId) throw validationError(`body.agentId is required: listing ${listing.id} costs ${price} microUnits, paid from that agent's wallet`);
      const escrow = await holdEscrow(ctx, req.id, { agentId: body.agentId, microUnits: price, payee: { tenantId: listing.tenant_id, agentId: listing.agent_id }, reference: `marketplace listing ${listing.id}`, reason: `use of "${listing.name}"` });
      escrowId = escrow.id;
    } else if (body.agentId) await checkAgent(ctx, req, body.agentId, 'body.agentId');
    const store = new UseStore(ctx.db);
    let row: UseRow;
    try {
      row = await store.create({ listingId: listing.id, listingTenantId: listing.tenant_id, tenantId: req.auth.tenantId, agentId: body.agentId ?? null, escrowId, microUnits: price });
    } catch (err) {
      // No use was recorded, so nothing may stay held for it.
      if (escrowId) await settleEscrow(ctx, req.id, escrowId, 'refund');
      throw err;
    }
    if (body.outcome) row = await settle(ctx, req, row.id, body.outcome, body.reason ?? '');
    return created(toUse(row));
  },

  async 'GET /api/marketplace/uses/:id'(req, ctx) {
    return ok(toUse(await new UseStore(ctx.db).get(req.auth.tenantId, req.params.id!)));
  },

  async 'POST /api/marketplace/uses/:id/settle'(req, ctx) {
    const body = validate<{ outcome: Outcome; reason?: string }>(schema(ctx, 'settle.json'), req.body);
    return ok(toUse(await settle(ctx, req, req.params.id!, body.outcome, body.reason ?? '')));
  },
};
