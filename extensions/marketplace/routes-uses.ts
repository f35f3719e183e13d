// Recording uses of a listing, with escrow for paid ones (see uses.ts), and settling them.
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, ok } from '../../sdk/http.js';
import { checkAgent, schema, visibleListing } from './common.js';
import { holdEscrow, settleEscrow } from './escrow-client.js';
import { settleUse } from './settle.js';
import type { Settler } from './settler.js';
import { toUse, UseStore, type Outcome, type UseRow } from './uses.js';

export const useRoutes: Record<string, RouteHandler<Settler>> = {
  async 'POST /api/marketplace/listings/:id/use'(req, ctx, settler) {
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
      if (escrowId) await settleEscrow(ctx, { requestId: req.id }, escrowId, 'refund');
      throw err;
    }
    if (body.outcome) row = await settleUse(ctx, { requestId: req.id }, req.auth.tenantId, row.id, body.outcome, body.reason ?? '');
    else if (escrowId) await settler.held();
    return created(toUse(row));
  },

  async 'GET /api/marketplace/uses/:id'(req, ctx) {
    return ok(toUse(await new UseStore(ctx.db).get(req.auth.tenantId, req.params.id!)));
  },

  async 'POST /api/marketplace/uses/:id/settle'(req, ctx) {
    const body = validate<{ outcome: Outcome; reason?: string }>(schema(ctx, 'settle.json'), req.body);
    return ok(toUse(await settleUse(ctx, { requestId: req.id }, req.auth.tenantId, req.params.id!, body.outcome, body.reason ?? '')));
  },
};
