// The feed other servers pull: this server's public listings, signed with the marketplace key. Its
// ETag is a digest of the listings (not of the signing time), so a puller that has them gets 304.
import { createHash } from 'node:crypto';
import type { ExtensionContext } from '../../sdk/extension.js';
import { SigningKey } from '../../sdk/signing.js';
import type { FeedListing } from './contract.js';
import { ListingStore, toListing } from './listings.js';

export const FEED_MAX_LISTINGS = 1000;

/** The marketplace's Ed25519 key (see sdk/signing.ts). */
export const signingKey = (ctx: ExtensionContext): Promise<SigningKey> => SigningKey.forExtension(ctx.host, 'marketplace federation');


/**
 * A listing's feed fields and nothing else: what this server publishes, and what it keeps of another
 * server's feed (a field that server adds is neither stored nor served to a tenant).
 */
export function feedListing(l: FeedListing): FeedListing {
  return {
    id: l.id, kind: l.kind, name: l.name, description: l.description, tags: l.tags, priceMicroUnits: l.priceMicroUnits,
    rating: { average: l.rating.average, count: l.rating.count }, useCount: l.useCount, updatedAt: l.updatedAt,
  };
}

export async function feed(ctx: ExtensionContext): Promise<{ etag: string; listings: FeedListing[] }> {
  const rows = await new ListingStore(ctx.db, ctx.sql).publicListings(FEED_MAX_LISTINGS);
  const listings = rows.map((row) => feedListing(toListing(row, '')));
  const etag = `"${createHash('sha256').update(JSON.stringify(listings)).digest('base64url').slice(0, 27)}"`;
  return { etag, listings };
}
