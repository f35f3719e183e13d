// Federated instances (other Roost servers a tenant's owner registered) with the marketplace key each is
// trusted to sign with, and the listings last pulled from each.
import type { Knex } from 'knex';
import { conflict, notFound } from '../../protocol/errors.js';
import type { FeedListing, FederatedListing } from './contract.js';
import { feedListing } from './feed.js';

export interface Instance {
  url: string;
  keyId: string;
  publicKey: string;
  timeoutMs: number;
  etag: string | null;
  lastSyncAt: string | null;
  lastStatus: string | null;
  lastError: string | null;
  listingCount: number;
  createdAt: string;
}

type Row = Record<string, any>;

export class InstanceStore {
  constructor(private readonly db: Knex) {}

  async list(tenantId: string): Promise<Instance[]> {
    return (await this.db('instances').where({ tenant_id: tenantId }).orderBy('created_at')).map(toInstance);
  }

  async add(tenantId: string, input: { url: string; publicKey: string; keyId: string; timeoutMs: number }): Promise<Instance> {
    const row = { tenant_id: tenantId, url: input.url, public_key: input.publicKey, key_id: input.keyId, timeout_ms: input.timeoutMs, etag: null, last_sync_at: null, last_status: null, last_error: null, listing_count: 0, created_at: new Date().toISOString() };
    const known = () => this.db('instances').where({ tenant_id: tenantId, url: input.url }).first();
    if (await known()) throw conflict(`instance ${input.url} is already registered`);
    try {
      await this.db('instances').insert(row);
    } catch (err) {
      if (await known()) throw conflict(`instance ${input.url} is already registered`);
      throw err;
    }
    return toInstance(row);
  }

  async remove(tenantId: string, url: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const n = await trx('instances').where({ tenant_id: tenantId, url }).delete();
      if (n === 0) throw notFound(`instance ${url}`);
      await trx('federated_listings').where({ tenant_id: tenantId, instance_url: url }).delete();
    });
  }

  /** Records a sync that changed nothing, or failed: the listings pulled before stay. */
  async noted(tenantId: string, url: string, status: string, error: string | null): Promise<void> {
    await this.db('instances').where({ tenant_id: tenantId, url }).update({ last_sync_at: new Date().toISOString(), last_status: status, last_error: error });
  }

  /** Replaces the instance's listings with a verified feed. */
  async replaced(tenantId: string, url: string, etag: string | null, listings: FeedListing[]): Promise<void> {
    const now = new Date().toISOString();
    await this.db.transaction(async (trx) => {
      await trx('federated_listings').where({ tenant_id: tenantId, instance_url: url }).delete();
      const rows = listings.map((l) => ({ tenant_id: tenantId, instance_url: url, remote_id: l.id, listing: JSON.stringify(l), synced_at: now }));
      for (let i = 0; i < rows.length; i += 100) await trx('federated_listings').insert(rows.slice(i, i + 100));
      await trx('instances').where({ tenant_id: tenantId, url }).update({ etag, last_sync_at: now, last_status: 'ok', last_error: null, listing_count: rows.length });
    });
  }

  async federated(tenantId: string, page: { limit: number; offset: number }, instance?: string): Promise<FederatedListing[]> {
    const query = this.db('federated_listings').where({ tenant_id: tenantId });
    if (instance) query.andWhere({ instance_url: instance });
    const rows = await query.orderBy(['instance_url', 'remote_id']).limit(page.limit).offset(page.offset);
    return rows.map((r: Row) => ({ ...feedListing(JSON.parse(r.listing) as FeedListing), instance: r.instance_url, syncedAt: r.synced_at }));
  }
}

function toInstance(row: Row): Instance {
  return {
    url: row.url, keyId: row.key_id, publicKey: row.public_key, timeoutMs: Number(row.timeout_ms), etag: row.etag ?? null, lastSyncAt: row.last_sync_at ?? null,
    lastStatus: row.last_status ?? null, lastError: row.last_error ?? null, listingCount: Number(row.listing_count), createdAt: row.created_at,
  };
}
