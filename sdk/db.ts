// Query helpers every extension's store shares.
import type { SqlReader, SqlValue } from './sql.js';

const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/**
 * `column` matched against a LIKE pattern bound to `?` (see containing/startingWith), ignoring case on
 * both databases as SQLite's LIKE does: ILIKE on PostgreSQL. The column comes from code, never input.
 */
export function likeClause(dialect: SqlReader['dialect'], column: string): string {
  return `${column} ${dialect === 'pg' ? 'ILIKE' : 'LIKE'} ? ESCAPE '\\'`;
}

/** A LIKE pattern that finds `text` anywhere, its own % and _ matched literally (use with `escape '\'`). */
export function containing(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** A LIKE pattern for values that start with `text` (use with `escape '\'`). */
export function startingWith(text: string): string {
  return `${escapeLike(text)}%`;
}

export interface PageRequest {
  limit: number;
  offset: number;
  /** The client asked for the total (`?total=true`): only then may a page cost a COUNT. */
  total?: boolean;
}

export interface PageQuery {
  /** What follows FROM, with `?` placeholders: "agents WHERE tenant_id = ?". */
  from: string;
  params: SqlValue[];
  orderBy: string;
  columns?: string;
}

export interface Page<Row> {
  rows: Row[];
  /** Whether rows follow this page. */
  hasMore: boolean;
  /** Present when known without a COUNT (the last page) or when the client asked for it. */
  total?: number;
}

/**
 * One page of a query, read with one prepared statement (one row more than the page, to tell whether
 * more follow). The total costs nothing on the last page; elsewhere a COUNT runs only when asked for.
 */
export async function paged<Row>(sql: SqlReader, query: PageQuery, page: PageRequest): Promise<Page<Row>> {
  const text = `SELECT ${query.columns ?? '*'} FROM ${query.from} ORDER BY ${query.orderBy} LIMIT ? OFFSET ?`;
  const rows = await sql.all<Row>(text, [...query.params, page.limit + 1, page.offset]);
  const hasMore = rows.length > page.limit;
  if (hasMore) rows.length = page.limit;
  if (!hasMore && (rows.length > 0 || page.offset === 0)) return { rows, hasMore, total: page.offset + rows.length };
  if (!page.total) return { rows, hasMore };
  const counted = await sql.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${query.from}`, query.params);
  return { rows, hasMore, total: Number(counted?.n ?? 0) };
}

/** Whether a failed write broke a unique constraint or a primary key (PostgreSQL 23505; SQLite's extended codes). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
