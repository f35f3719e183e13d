// Pulling listings from every registered instance at once, each within its own time limit: a 304 keeps
// what was pulled before; a feed is kept only when its signature verifies with the key pinned at
// registration. One instance that is down, slow or forged is reported and never fails the others.
import type { ValidateFunction } from 'ajv';
import { schemaValidator } from '../../protocol/validate.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { request, type Reach } from '../../sdk/outbound.js';
import { portOf, reachFor, reachPolicy } from '../../sdk/reach.js';
import { openEnvelope, publicKeyFrom } from '../../sdk/signing.js';
import { schema } from './common.js';
import type { FeedListing } from './contract.js';
import { FEED_MAX_LISTINGS, feedListing } from './feed.js';
import { InstanceStore, type Instance } from './instances.js';

export const FEED_PATH = '/api/marketplace/federation/feed';
const FEED_MAX_BYTES = 8 * 1024 * 1024;

export type SyncStatus = 'ok' | 'not_modified' | 'unreachable' | 'timeout' | 'bad_signature' | 'invalid';

export interface SyncResult {
  url: string;
  status: SyncStatus;
  listings: number;
  error: string | null;
}

class SyncFailure extends Error {
  constructor(
    readonly status: SyncStatus,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Where a tenant's federation requests may go (sdk/reach.ts): another tenant reaches public
 * addresses only, so registering an instance is no way to probe this machine or its network.
 */
export function federationReach(ctx: ExtensionContext, tenantId: string, url: string): Reach {
  return reachFor(reachPolicy(ctx), tenantId, portOf(new URL(url)));
}

export async function syncAll(ctx: ExtensionContext, tenantId: string): Promise<SyncResult[]> {
  const store = new InstanceStore(ctx.db);
  const instances = await store.list(tenantId);
  const isListing = schemaValidator(schema(ctx, 'feed-listing.json'));
  return Promise.all(instances.map(async (instance): Promise<SyncResult> => {
    try {
      const pulled = await pull(instance, isListing, federationReach(ctx, tenantId, instance.url));
      if (pulled === 'not_modified') {
        await store.noted(tenantId, instance.url, 'not_modified', null);
        return { url: instance.url, status: 'not_modified', listings: instance.listingCount, error: null };
      }
      await store.replaced(tenantId, instance.url, pulled.etag, pulled.listings);
      return { url: instance.url, status: 'ok', listings: pulled.listings.length, error: null };
    } catch (err) {
      const failure = err instanceof SyncFailure ? err : new SyncFailure(timedOut(err) ? 'timeout' : 'unreachable', (err as Error).message);
      await store.noted(tenantId, instance.url, failure.status, failure.message);
      return { url: instance.url, status: failure.status, listings: instance.listingCount, error: failure.message };
    }
  }));
}

const timedOut = (err: unknown) => (err as { status?: number }).status === 504;

async function pull(instance: Instance, isListing: ValidateFunction, reach: Reach): Promise<'not_modified' | { etag: string | null; listings: FeedListing[] }> {
  const reply = await request({
    method: 'GET', url: new URL(`${instance.url}${FEED_PATH}`), headers: instance.etag ? { 'if-none-match': instance.etag } : {},
    timeoutMs: instance.timeoutMs, maxBytes: FEED_MAX_BYTES, reach,
  });
  if (reply.status === 304) return 'not_modified';
  if (reply.status !== 200) throw new SyncFailure('unreachable', `the feed answered ${reply.status}`);
  const key = publicKeyFrom({ algorithm: 'Ed25519', publicKey: instance.publicKey });
  if (!key) throw new SyncFailure('invalid', 'the pinned key is not an Ed25519 key');
  const opened = openEnvelope(reply.body, key);
  if (!opened.ok) throw new SyncFailure('bad_signature', `feed refused: ${opened.reason}`);
  const statement = opened.statement as { type?: unknown; listings?: unknown };
  if (statement?.type !== 'roost.marketplace.feed' || !Array.isArray(statement.listings)) throw new SyncFailure('invalid', 'the signed statement is not a marketplace feed');
  const listings = statement.listings.slice(0, FEED_MAX_LISTINGS).filter((l) => isListing(l)).map((l) => feedListing(l as FeedListing));
  const etag = reply.headers.etag;
  return { etag: typeof etag === 'string' && etag.length <= 200 ? etag : null, listings };
}
