// Listings: what a tenant offers (an agent, a skill bundle or a workflow) with a price in credits. A
// public listing is seen by every tenant (and by federated servers); a private one only by its owner.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader } from '../../sdk/sql.js';
import { weightedTerms } from './terms.js';

export type ListingKind = 'agent' | 'skill_bundle' | 'workflow';
export type Visibility = 'public' | 'private';

export interface Listing {
  id: string;
  kind: ListingKind;
  name: string;
  description: string;
  tags: string[];
  resourceId: string | null;
  agentId: string | null;
  priceMicroUnits: number;
  visibility: Visibility;
  rating: { average: number | null; count: number };
  useCount: number;
  agentReputation: number | null;
  /** Whether the caller's tenant owns it. */
  mine: boolean;
  createdAt: string;
  updatedAt: string;
}

export type ListingInput = Partial<Pick<Listing, 'kind' | 'name' | 'description' | 'tags' | 'resourceId' | 'agentId' | 'priceMicroUnits' | 'visibility'>>;

export type ListingRow = Record<string, any>;

export class ListingStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  /** A listing the tenant may see: its own, or a public one. */
  async visible(tenantId: string, id: string): Promise<ListingRow | undefined> {
    return this.sql.get<ListingRow>("SELECT * FROM listings WHERE id = ? AND (tenant_id = ? OR visibility = 'public')", [id, tenantId]);
  }

  async own(tenantId: string, page: PageRequest): Promise<{ listings: Listing[]; total?: number; hasMore: boolean }> {
    const { rows, total, hasMore } = await paged<ListingRow>(this.sql, { from: 'listings WHERE tenant_id = ?', params: [tenantId], orderBy: 'created_at, id' }, page);
    return { listings: rows.map((r) => toListing(r, tenantId)), ...(total === undefined ? {} : { total }), hasMore };
  }

  async publicListings(limit: number): Promise<ListingRow[]> {
    return this.sql.all<ListingRow>("SELECT * FROM listings WHERE visibility = 'public' ORDER BY updated_at DESC, id LIMIT ?", [limit]);
  }

  async create(tenantId: string, input: Required<Pick<ListingInput, 'kind' | 'name'>> & ListingInput): Promise<ListingRow> {
    const now = new Date().toISOString();
    const row: ListingRow = {
      id: randomUUID(), tenant_id: tenantId, kind: input.kind, name: input.name, description: input.description ?? '', tags: JSON.stringify(input.tags ?? []),
      resource_id: input.resourceId ?? null, agent_id: input.agentId ?? null, price_micro_units: input.priceMicroUnits ?? 0, visibility: input.visibility ?? 'public',
      rating_sum: 0, rating_count: 0, use_count: 0, agent_reputation: null, created_at: now, updated_at: now,
    };
    await this.db.transaction(async (trx) => {
      await trx('listings').insert(row);
      await index(trx, row);
    });
    return row;
  }

  async update(tenantId: string, id: string, input: ListingInput): Promise<ListingRow | undefined> {
    return this.db.transaction(async (trx) => {
      const current = await trx('listings').where({ tenant_id: tenantId, id }).first();
      if (!current) return undefined;
      const patch: ListingRow = { updated_at: new Date().toISOString() };
      if (input.kind !== undefined) patch.kind = input.kind;
      if (input.name !== undefined) patch.name = input.name;
      if (input.description !== undefined) patch.description = input.description;
      if (input.tags !== undefined) patch.tags = JSON.stringify(input.tags);
      if (input.resourceId !== undefined) patch.resource_id = input.resourceId;
      if (input.agentId !== undefined) patch.agent_id = input.agentId;
      if (input.priceMicroUnits !== undefined) patch.price_micro_units = input.priceMicroUnits;
      if (input.visibility !== undefined) patch.visibility = input.visibility;
      await trx('listings').where({ id }).update(patch);
      const row = { ...current, ...patch };
      await index(trx, row);
      return row;
    });
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('listings').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  /** The reputation extension announced a new score for an agent: its listings rank by it. */
  async setAgentReputation(tenantId: string, agentId: string, score: number): Promise<void> {
    await this.db('listings').where({ tenant_id: tenantId, agent_id: agentId }).update({ agent_reputation: score });
  }
}

async function index(trx: Knex.Transaction, row: ListingRow): Promise<void> {
  await trx('listing_terms').where({ listing_id: row.id }).delete();
  const terms = weightedTerms({ name: row.name, tags: JSON.parse(row.tags) as string[], description: row.description });
  const records = [...terms].map(([term, weight]) => ({ listing_id: row.id, term, weight }));
  // Chunks keep each insert under SQLite's limit on bound variables.
  for (let i = 0; i < records.length; i += 200) await trx('listing_terms').insert(records.slice(i, i + 200));
}

export function toListing(row: ListingRow, tenantId: string): Listing {
  const count = Number(row.rating_count);
  return {
    id: row.id, kind: row.kind, name: row.name, description: row.description, tags: JSON.parse(row.tags) as string[],
    resourceId: row.resource_id ?? null, agentId: row.agent_id ?? null, priceMicroUnits: Number(row.price_micro_units), visibility: row.visibility,
    rating: { average: count > 0 ? Math.round((Number(row.rating_sum) / count) * 100) / 100 : null, count }, useCount: Number(row.use_count),
    agentReputation: row.agent_reputation === null || row.agent_reputation === undefined ? null : Number(row.agent_reputation),
    mine: row.tenant_id === tenantId, createdAt: row.created_at, updatedAt: row.updated_at,
  };
}
