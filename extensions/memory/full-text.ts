// Keyword search over a blind index (words.ts), in each database's own full-text engine: FTS5 ranked
// by bm25 on SQLite, a tsvector ranked by ts_rank on PostgreSQL. Tokens are lowercase letters only,
// so they need no quoting beyond FTS5's string syntax.
import type { SqlReader } from '../../sdk/sql.js';

export interface TokenQuery {
  /** Every one of these must be present (tags). */
  all: string[];
  /** At least one of these (the query's words); ranked by how well they match. */
  any: string[];
}

function matchExpression(dialect: SqlReader['dialect'], query: TokenQuery): string {
  const [and, or, quote] = dialect === 'pg' ? [' & ', ' | ', (t: string) => t] : [' AND ', ' OR ', (t: string) => `"${t}"`];
  const parts = query.all.map(quote);
  if (query.any.length > 0) parts.push(`(${query.any.map(quote).join(or)})`);
  return parts.join(and);
}

/**
 * SELECT `columns` (written with the alias `d.`) of `table` rows matching `query` and `where` (also on
 * `d.`), best match first, with their `rank` (higher is better on both databases). Bind `match` first,
 * then the parameters of `where`, then limit and offset.
 */
export function searchStatement(
  dialect: SqlReader['dialect'],
  table: string,
  columns: string,
  where: string,
  query: TokenQuery,
): { text: string; match: string } {
  const match = matchExpression(dialect, query);
  if (dialect === 'pg') {
    return {
      text: `SELECT ${columns}, ts_rank(d.words_tsv, q) AS rank FROM ${table} d, to_tsquery('simple', ?) q WHERE d.words_tsv @@ q AND ${where} ORDER BY rank DESC, d.updated_at DESC, d.id LIMIT ? OFFSET ?`,
      match,
    };
  }
  const fts = `${table}_fts`;
  return {
    text: `SELECT ${columns}, -bm25(${fts}) AS rank FROM ${fts} JOIN ${table} d ON d.seq = ${fts}.rowid WHERE ${fts} MATCH ? AND ${where} ORDER BY rank DESC, d.updated_at DESC, d.id LIMIT ? OFFSET ?`,
    match,
  };
}
