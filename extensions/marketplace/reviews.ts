// Reviews: one per tenant and listing (a second is a 409), never of one's own listing. The listing's
// rating sum and count change in the same transaction as the review rows.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { conflict, notFound } from '../../protocol/errors.js';
import type { SqlReader } from '../../sdk/sql.js';

export interface Review {
  id: string;
  listingId: string;
  rating: number;
  comment: string;
  /** Whether the caller's tenant wrote it. */
  mine: boolean;
  createdAt: string;
}

type Row = Record<string, any>;

export class ReviewStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async list(tenantId: string, listingId: string, page: { limit: number; offset: number }): Promise<Review[]> {
    const rows = await this.sql.all<Row>('SELECT * FROM reviews WHERE listing_id = ? ORDER BY created_at DESC, id LIMIT ? OFFSET ?', [listingId, page.limit, page.offset]);
    return rows.map((r) => toReview(r, tenantId));
  }

  async create(tenantId: string, listingId: string, input: { rating: number; comment?: string }): Promise<Review> {
    const row = { id: randomUUID(), listing_id: listingId, tenant_id: tenantId, rating: input.rating, comment: input.comment ?? '', created_at: new Date().toISOString() };
    await this.db.transaction(async (trx) => {
      const existing = await trx('reviews').where({ listing_id: listingId, tenant_id: tenantId }).first();
      if (existing) throw conflict(`your tenant has already reviewed listing ${listingId} (review ${existing.id}); delete it to write another`);
      await trx('reviews').insert(row);
      await trx('listings').where({ id: listingId }).increment({ rating_sum: input.rating, rating_count: 1 });
    }).catch(async (err) => {
      // Two reviews racing: the unique index refuses the second.
      if (await this.db('reviews').where({ listing_id: listingId, tenant_id: tenantId }).whereNot({ id: row.id }).first()) throw conflict(`your tenant has already reviewed listing ${listingId}`);
      throw err;
    });
    return toReview(row, tenantId);
  }

  /** Deleted by its author's tenant or by the listing's owner; anyone else gets 404. */
  async remove(tenantId: string, id: string): Promise<{ review: Review; listingTenantId: string; agentId: string | null }> {
    return this.db.transaction(async (trx) => {
      const row = await trx('reviews as r').join('listings as l', 'l.id', 'r.listing_id').where('r.id', id).first('r.*', 'l.tenant_id as listing_tenant_id', 'l.agent_id as listing_agent_id');
      if (!row || (row.tenant_id !== tenantId && row.listing_tenant_id !== tenantId)) throw notFound(`review ${id}`);
      await trx('reviews').where({ id }).delete();
      await trx('listings').where({ id: row.listing_id }).decrement({ rating_sum: row.rating, rating_count: 1 });
      return { review: toReview(row, tenantId), listingTenantId: row.listing_tenant_id, agentId: row.listing_agent_id ?? null };
    });
  }
}

function toReview(row: Row, tenantId: string): Review {
  return { id: row.id, listingId: row.listing_id, rating: Number(row.rating), comment: row.comment, mine: row.tenant_id === tenantId, createdAt: row.created_at };
}
