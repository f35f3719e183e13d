// Settling a use: claim it (one settler wins), move its escrow (release to the seller on success,
// refund on failure), and tell the seller's tenant how its listing did.
import type { ExtensionContext } from '../../sdk/extension.js';
import type { CallAs } from '../../sdk/host-client.js';
import { settleEscrow } from './escrow-client.js';
import { UseStore, type Outcome, type UseRow } from './uses.js';

export async function settleUse(ctx: ExtensionContext, as: CallAs, tenantId: string, useId: string, outcome: Outcome, reason: string): Promise<UseRow> {
  const store = new UseStore(ctx.db);
  const { row, previous } = await store.claim(tenantId, useId, outcome, reason);
  if (row.escrow_id) {
    try {
      await settleEscrow(ctx, as, row.escrow_id, outcome === 'success' ? 'release' : 'refund');
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
