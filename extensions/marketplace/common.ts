// What the marketplace's route handlers share: schema paths, the visible-listing lookup, agent checks.
import { join } from 'node:path';
import { notFound, RoostError, validationError } from '../../protocol/errors.js';
import { agentById } from '../agents/contract.js';
import type { ExtensionContext, RouteRequest } from '../../sdk/extension.js';
import { ListingStore, type ListingRow } from './listings.js';

export const schema = (ctx: ExtensionContext, name: string): string => join(ctx.init.plugin.dir, 'schemas', name);
export const listings = (ctx: ExtensionContext): ListingStore => new ListingStore(ctx.db, ctx.sql);

/** The listing of `:id` if the caller's tenant may see it (its own, or public), else 404. */
export async function visibleListing(ctx: ExtensionContext, req: RouteRequest): Promise<ListingRow> {
  const row = await listings(ctx).visible(req.auth.tenantId, req.params.id!);
  if (!row) throw notFound(`listing ${req.params.id}`);
  return row;
}

/** An agent of the caller's tenant named in the body (another tenant's is unknown): a 400 naming the field. */
export async function checkAgent(ctx: ExtensionContext, req: RouteRequest, agentId: string, field: string): Promise<void> {
  await agentById(ctx.host, { requestId: req.id }, agentId).catch((err: unknown) => {
    throw err instanceof RoostError && err.code === 'NOT_FOUND' ? validationError(`${field}: agent ${agentId} not found`) : err;
  });
}
