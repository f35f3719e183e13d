// Reviews of listings. A new or deleted review is announced to the listing owner's tenant as
// marketplace.review, so the reputation extension can count it for the seller agent.
import { forbidden } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, noContent, ok, page } from '../../sdk/http.js';
import { schema, visibleListing } from './common.js';
import { ReviewStore } from './reviews.js';

export const reviewRoutes: Record<string, RouteHandler> = {
  async 'GET /api/marketplace/listings/:id/reviews'(req, ctx) {
    const listing = await visibleListing(ctx, req);
    const { limit, offset } = page(req.query);
    return ok({ reviews: await new ReviewStore(ctx.db, ctx.sql).list(req.auth.tenantId, listing.id, { limit, offset }) });
  },

  async 'POST /api/marketplace/listings/:id/reviews'(req, ctx) {
    const input = validate<{ rating: number; comment?: string }>(schema(ctx, 'review-create.json'), req.body);
    const listing = await visibleListing(ctx, req);
    if (listing.tenant_id === req.auth.tenantId) throw forbidden('a tenant cannot review its own listing');
    const review = await new ReviewStore(ctx.db, ctx.sql).create(req.auth.tenantId, listing.id, input);
    ctx.host.emit('marketplace.review', { action: 'created', reviewId: review.id, listingId: listing.id, agentId: listing.agent_id ?? null, rating: review.rating }, listing.tenant_id);
    return created(review);
  },

  async 'DELETE /api/marketplace/reviews/:id'(req, ctx) {
    const { review, listingTenantId, agentId } = await new ReviewStore(ctx.db, ctx.sql).remove(req.auth.tenantId, req.params.id!);
    ctx.host.emit('marketplace.review', { action: 'deleted', reviewId: review.id, listingId: review.listingId, agentId, rating: review.rating }, listingTenantId);
    return noContent();
  },
};
