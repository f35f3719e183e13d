// Query helpers every extension's store shares.
import type { Knex } from 'knex';

const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** A LIKE pattern that finds `text` anywhere, its own % and _ matched literally (use with `escape '\'`). */
export function containing(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** A LIKE pattern for values that start with `text` (use with `escape '\'`). */
export function startingWith(text: string): string {
  return `${escapeLike(text)}%`;
}

/** One page of a query, in the given order, and the total the query has without paging. */
export async function paged<Row>(
  base: Knex.QueryBuilder,
  page: { limit: number; offset: number },
  order: Array<[column: string, direction?: 'asc' | 'desc']>,
): Promise<{ rows: Row[]; total: number }> {
  const [{ n }] = await base.clone().count<{ n: number }[]>({ n: '*' });
  const query = base.clone();
  for (const [column, direction] of order) query.orderBy(column, direction ?? 'asc');
  const rows = (await query.limit(page.limit).offset(page.offset)) as Row[];
  return { rows, total: Number(n) };
}
