// Claiming queued work so that each item runs exactly once, however many instances (or workers) ask
// at the same time. PostgreSQL: SELECT … FOR UPDATE SKIP LOCKED, so claimants skip the rows another
// is claiming instead of waiting for them. SQLite: one UPDATE … RETURNING, atomic under its single
// writer.
import type { Knex } from 'knex';

export interface ClaimRequest {
  table: string;
  /** Which rows are waiting: { state: 'queued' }. */
  where: Record<string, unknown>;
  /** Written into the claimed rows (it must make `where` false for them): { state: 'running', claimed_by: me }. */
  set: Record<string, unknown>;
  /** Oldest first, say: 'id'. */
  orderBy: string;
  /** The table's key column (default 'id'). */
  key?: string;
  /** At most this many rows (default 1). */
  limit?: number;
}

/** Claims up to `limit` waiting rows and returns them as they are after the claim. */
export async function claim<Row = Record<string, unknown>>(db: Knex, request: ClaimRequest): Promise<Row[]> {
  const key = request.key ?? 'id';
  const limit = request.limit ?? 1;
  if (db.client.config.client !== 'pg') {
    const waiting = db(request.table).select(key).where(request.where).orderBy(request.orderBy).limit(limit);
    return db(request.table).whereIn(key, waiting).andWhere(request.where).update(request.set).returning('*') as Promise<Row[]>;
  }
  return db.transaction(async (trx) => {
    const rows: Array<Record<string, unknown>> = await trx(request.table).select([key]).where(request.where).orderBy(request.orderBy).limit(limit).forUpdate().skipLocked();
    if (rows.length === 0) return [];
    return trx(request.table).whereIn(key, rows.map((r) => r[key] as string | number)).update(request.set).returning('*') as Promise<Row[]>;
  });
}
