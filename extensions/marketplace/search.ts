// Search over the listings a tenant may see. Relevance is computed here from the term index (the same
// plain SQL on SQLite and PostgreSQL): each query word found in a listing adds its weight there (name 3,
// tag 2, description 1) times the word's rarity, 1 + ln(N / listings holding it). The rank multiplies
// relevance by a reputation factor from 0.5 to 1.5: half from the listing's reviews (an average pulled
// towards 3 stars by two imaginary reviews, so one 5-star review does not beat forty 4.8s), half from
// the seller agent's reputation score when it has one.
import type { Knex } from 'knex';
import type { SqlReader } from '../../sdk/sql.js';
import { toListing, type Listing, type ListingRow } from './listings.js';
import { words } from './terms.js';

export interface SearchRequest {
  q: string;
  kind?: string;
  tag?: string;
  maxPrice?: number;
  minRating?: number;
  limit: number;
  offset: number;
}

export interface SearchHit extends Listing {
  relevance: number;
  reputation: number;
  rank: number;
}

const MAX_QUERY_WORDS = 20;
const MAX_CANDIDATES = 2000;
const VISIBLE = "(l.tenant_id = ? OR l.visibility = 'public')";

function reputationOf(row: ListingRow): number {
  const reviews = (Number(row.rating_sum) + 3 * 2) / (Number(row.rating_count) + 2) / 5;
  const agent = row.agent_reputation === null || row.agent_reputation === undefined ? null : Number(row.agent_reputation) / 100;
  return agent === null ? reviews : (reviews + agent) / 2;
}

// The queries with a variable number of words or ids go through knex, not the cache of prepared statements.
export async function search(db: Knex, sql: SqlReader, tenantId: string, request: SearchRequest): Promise<{ results: SearchHit[]; total: number; hasMore: boolean }> {
  const terms = [...new Set(words(request.q))].slice(0, MAX_QUERY_WORDS);
  const filters: string[] = [VISIBLE];
  const params: Array<string | number> = [tenantId];
  if (request.kind) {
    filters.push('l.kind = ?');
    params.push(request.kind);
  }
  if (request.maxPrice !== undefined) {
    filters.push('l.price_micro_units <= ?');
    params.push(request.maxPrice);
  }
  const where = filters.join(' AND ');
  let rows: ListingRow[];
  const relevance = new Map<string, number>();
  if (terms.length === 0) {
    rows = await sql.all<ListingRow>(`SELECT l.* FROM listings l WHERE ${where} ORDER BY l.updated_at DESC LIMIT ?`, [...params, MAX_CANDIDATES]);
    for (const row of rows) relevance.set(row.id, 1);
  } else {
    const hits: Array<{ listing_id: string; term: string; weight: number }> = await db('listing_terms as t')
      .join('listings as l', 'l.id', 't.listing_id')
      .whereIn('t.term', terms)
      .andWhereRaw(where, params)
      .select('t.listing_id', 't.term', 't.weight');
    const [{ n }] = await sql.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM listings l WHERE ${where}`, params);
    const holding = new Map<string, number>();
    for (const h of hits) holding.set(h.term, (holding.get(h.term) ?? 0) + 1);
    for (const h of hits) {
      const rarity = 1 + Math.log(Number(n) / holding.get(h.term)!);
      relevance.set(h.listing_id, (relevance.get(h.listing_id) ?? 0) + Number(h.weight) * rarity);
    }
    const ids = [...relevance.keys()].slice(0, MAX_CANDIDATES);
    rows = ids.length === 0 ? [] : await db('listings').whereIn('id', ids).select('*');
  }
  const tag = request.tag?.toLowerCase();
  const hits = rows
    .map((row) => ({ row, listing: toListing(row, tenantId) }))
    .filter(({ listing }) => !tag || listing.tags.some((t) => t.toLowerCase() === tag))
    .filter(({ listing }) => request.minRating === undefined || (listing.rating.average ?? 0) >= request.minRating)
    .map(({ row, listing }) => {
      const rel = relevance.get(row.id) ?? 0;
      const reputation = reputationOf(row);
      return { ...listing, relevance: round(rel), reputation: round(reputation), rank: round(rel * (0.5 + reputation)) };
    })
    .sort((a, b) => b.rank - a.rank || b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  const results = hits.slice(request.offset, request.offset + request.limit);
  return { results, total: hits.length, hasMore: request.offset + results.length < hits.length };
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
