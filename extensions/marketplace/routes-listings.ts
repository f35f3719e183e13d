// Listings CRUD and search.
import { forbidden, notFound, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { created, noContent, ok, page, queryString } from '../../sdk/http.js';
import { resolveReference } from '../../sdk/references.js';
import { checkAgent, listings, schema, visibleListing } from './common.js';
import { toListing, type ListingInput, type ListingRow } from './listings.js';
import { search } from './search.js';

const RESOURCE_KINDS = { agent: 'agent', skill_bundle: 'skill bundle', workflow: 'workflow' } as const;

async function checkInput(ctx: ExtensionContext, req: RouteRequest, input: ListingInput, current?: ListingRow): Promise<void> {
  if (input.agentId) await checkAgent(ctx, req, input.agentId, 'body.agentId');
  // What is offered must be the caller's own: a listing is public, so another tenant's private agent
  // would be published by naming its id.
  const kind = (input.kind ?? current?.kind) as keyof typeof RESOURCE_KINDS;
  const resourceId = input.resourceId ?? (input.kind !== undefined ? current?.resource_id : null);
  if (resourceId) await resolveReference(ctx.host, { requestId: req.id }, RESOURCE_KINDS[kind], resourceId, 'body.resourceId');
  const price = input.priceMicroUnits ?? Number(current?.price_micro_units ?? 0);
  const agentId = input.agentId ?? current?.agent_id;
  if (price > 0 && !agentId) throw validationError('body.agentId is required for a paid listing: the wallet of that agent is paid');
}

/** The owner's listing, for a change: another tenant's public listing is 403, a private one 404. */
async function ownListing(ctx: ExtensionContext, req: RouteRequest): Promise<ListingRow> {
  const row = await visibleListing(ctx, req);
  if (row.tenant_id !== req.auth.tenantId) throw forbidden(`listing ${row.id} belongs to another tenant; only its owner changes it`);
  return row;
}

function numberQuery(req: RouteRequest, name: string, min: number, max: number): number | undefined {
  const raw = queryString(req.query, name);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw validationError(`query.${name} must be a number from ${min} to ${max}`);
  return n;
}

export const listingRoutes: Record<string, RouteHandler> = {
  async 'GET /api/marketplace/listings'(req, ctx) {
    return ok(await listings(ctx).own(req.auth.tenantId, page(req.query)));
  },

  async 'POST /api/marketplace/listings'(req, ctx) {
    const input = validate<Required<Pick<ListingInput, 'kind' | 'name'>> & ListingInput>(schema(ctx, 'listing-create.json'), req.body);
    await checkInput(ctx, req, input);
    const row = await listings(ctx).create(req.auth.tenantId, input);
    return created(toListing(row, req.auth.tenantId));
  },

  async 'GET /api/marketplace/listings/:id'(req, ctx) {
    return ok(toListing(await visibleListing(ctx, req), req.auth.tenantId));
  },

  async 'PUT /api/marketplace/listings/:id'(req, ctx) {
    const input = validate<ListingInput>(schema(ctx, 'listing-update.json'), req.body);
    const current = await ownListing(ctx, req);
    await checkInput(ctx, req, input, current);
    const row = await listings(ctx).update(req.auth.tenantId, current.id, input);
    if (!row) throw notFound(`listing ${current.id}`);
    return ok(toListing(row, req.auth.tenantId));
  },

  async 'DELETE /api/marketplace/listings/:id'(req, ctx) {
    const row = await ownListing(ctx, req);
    await listings(ctx).remove(req.auth.tenantId, row.id);
    return noContent();
  },

  async 'GET /api/marketplace/search'(req, ctx) {
    const { limit, offset } = page(req.query);
    const kind = queryString(req.query, 'kind');
    if (kind !== undefined && !['agent', 'skill_bundle', 'workflow'].includes(kind)) throw validationError('query.kind must be agent, skill_bundle or workflow');
    const q = queryString(req.query, 'q') ?? '';
    if (q.length > 500) throw validationError('query.q must be at most 500 characters');
    const tag = queryString(req.query, 'tag');
    const request = { q, limit, offset, ...(kind ? { kind } : {}), ...(tag ? { tag } : {}) };
    const maxPrice = numberQuery(req, 'maxPrice', 0, Number.MAX_SAFE_INTEGER);
    const minRating = numberQuery(req, 'minRating', 1, 5);
    return ok(await search(ctx.db, ctx.sql, req.auth.tenantId, { ...request, ...(maxPrice !== undefined ? { maxPrice } : {}), ...(minRating !== undefined ? { minRating } : {}) }));
  },
};
