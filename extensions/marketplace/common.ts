// What the marketplace's route handlers share: schema paths, the visible-listing lookup, agent checks.
import { join } from 'node:path';
import { notFound, RoostError, validationError } from '../../protocol/errors.js';
import type { ExtensionContext, RouteRequest } from '../_shared/extension.js';
import { ListingStore, type ListingRow } from './listings.js';

export const schema = (ctx: ExtensionContext, name: string): string => join(ctx.init.plugin.dir, 'schemas', name);
export const listings = (ctx: ExtensionContext): ListingStore => new ListingStore(ctx.db, ctx.sql);

/** The listing of `:id` if the caller's tenant may see it (its own, or public), else 404. */
export async function visibleListing(ctx: ExtensionContext, req: RouteRequest): Promise<ListingRow> {
  const row = await listings(ctx).visible(req.auth.tenantId, req.params.id!);
  if (!row) throw notFound(`listing ${req.params.id}`);
  return row;
}

/** An agent of the caller's tenant, checked through the agents extension (another tenant's is unknown). */
export async function checkAgent(ctx: ExtensionContext, req: RouteRequest, agentId: string, field: string): Promise<void> {
  const reply = await ctx.host.call<{ code?: string }>('GET', `/api/agents/${encodeURIComponent(agentId)}`, null, { requestId: req.id });
  if (reply.status === 200) return;
  if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') throw new RoostError('EXTENSION_UNAVAILABLE', 'the agents extension is not loaded');
  if (reply.status === 404) throw validationError(`${field}: agent ${agentId} not found`);
  throw new RoostError('UPSTREAM_ERROR', `the agents extension answered ${reply.status}`);
}
