// A record's JSON, defined once as a map from output field to column, and made two ways from it: from
// a row in JavaScript (single records), or by the database itself for a whole page of a list, which
// then comes back as one JSON string that is sent as it is — no row objects, no JSON.stringify.
import type { PageRequest, PageQuery } from './db.js';
import type { SqlReader } from './sql.js';

/** Output field → column, or `{ json: column }` for a column holding JSON text. */
export type Shape = Record<string, string | { json: string }>;

type Dialect = SqlReader['dialect'];

export function fromRow<T>(shape: Shape, row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(shape)) {
    out[field] = typeof column === 'string' ? row[column] : JSON.parse(row[column.json] as string);
  }
  return out as T;
}

/** The SQL expression building one record's JSON object (column names come from code, never from input). */
function jsonObject(shape: Shape, dialect: Dialect): string {
  const pairs = Object.entries(shape).map(([field, column]) => {
    if (typeof column === 'string') return `'${field}', ${column}`;
    return dialect === 'pg' ? `'${field}', (${column.json})::json` : `'${field}', json(${column.json})`;
  });
  return `${dialect === 'pg' ? 'json_build_object' : 'json_object'}(${pairs.join(', ')})`;
}

export interface JsonPage {
  /** The page's records as a JSON array, ready to send. */
  json: string;
  hasMore: boolean;
  /** As in paged(): known on the last page, counted only when asked for. */
  total?: number;
}

/**
 * One page of a list as a JSON array built by the database, in one statement (prepared once, reused):
 * the page, and how many rows there are from its start up to one past its end (so: whether more follow).
 */
export async function pagedJson(sql: SqlReader, shape: Shape, query: PageQuery, page: PageRequest): Promise<JsonPage> {
  const params = [...query.params, page.limit, page.offset, ...query.params, page.limit + 1, page.offset];
  const row = await sql.get<{ page: string | null; fetched: number | string }>(pageSql(sql.dialect, shape, query), params);
  const fetched = Number(row?.fetched ?? 0);
  const json = row?.page ?? '[]';
  const hasMore = fetched > page.limit;
  if (!hasMore && (fetched > 0 || page.offset === 0)) return { json, hasMore, total: page.offset + fetched };
  if (!page.total) return { json, hasMore };
  const counted = await sql.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${query.from}`, query.params);
  return { json, hasMore, total: Number(counted?.n ?? 0) };
}

/** The statement's text, made once per shape and query form (the reader then reuses its prepared statement). */
function pageSql(dialect: Dialect, shape: Shape, query: PageQuery): string {
  const key = `${dialect}\0${query.from}\0${query.orderBy}`;
  let texts = pageSqlCache.get(shape);
  if (!texts) pageSqlCache.set(shape, (texts = new Map()));
  let text = texts.get(key);
  if (!text) {
    const object = jsonObject(shape, dialect);
    const aggregate = dialect === 'pg'
      ? `(json_agg(${object} ORDER BY ${query.orderBy}))::text`
      : `json_group_array(${object} ORDER BY ${query.orderBy})`;
    const window = `FROM ${query.from} ORDER BY ${query.orderBy} LIMIT ? OFFSET ?`;
    text = `SELECT (SELECT ${aggregate} FROM (SELECT * ${window}) AS rows) AS page, (SELECT COUNT(*) FROM (SELECT 1 AS one ${window}) AS ahead) AS fetched`;
    texts.set(key, text);
  }
  return text;
}

const pageSqlCache = new WeakMap<Shape, Map<string, string>>();
