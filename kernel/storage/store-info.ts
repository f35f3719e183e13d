// Which store the server runs on, as /api/health names it: SQLite or PostgreSQL and the version its
// server reports, asked once per database (a version does not change under a running server; a failed
// ask is tried again next time).
import type { Knex } from 'knex';

export interface StoreInfo {
  kind: 'sqlite' | 'postgresql';
  /** The engine's own version (SQLite's library, PostgreSQL's server); null while it could not be asked. */
  version: string | null;
}

const versions = new WeakMap<Knex, Promise<string>>();

export async function storeInfo(db: Knex): Promise<StoreInfo> {
  const kind = db.client.config.client === 'pg' ? 'postgresql' : 'sqlite';
  let version = versions.get(db);
  if (!version) {
    version = askVersion(db, kind);
    versions.set(db, version);
    version.catch(() => versions.delete(db));
  }
  return { kind, version: await version.catch(() => null) };
}

async function askVersion(db: Knex, kind: StoreInfo['kind']): Promise<string> {
  if (kind === 'postgresql') {
    const result = await db.raw('SHOW server_version');
    return String(result.rows[0].server_version);
  }
  const rows = await db.raw('SELECT sqlite_version() AS version');
  return String(rows[0].version);
}
