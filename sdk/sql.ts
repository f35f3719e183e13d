// The read path of an extension's database: one trip to the database per query, with a prepared
// statement reused across requests, on read-only connections that do not wait for the writer (SQLite
// WAL lets readers run beside the single writer). Writes and migrations stay with knex (ctx.db); hot
// reads are written once as SQL with `?` placeholders and never compiled per request.
import { createRequire } from 'node:module';
import type { StorageInfo } from '../protocol/messages.js';
import { openSqlite, prepared } from '../lib/sqlite-client.js';
import { pgTypes, SQLITE_BUSY_TIMEOUT_MS, sqliteFile } from '../lib/storage.js';

export type SqlValue = string | number | boolean | null;
type Row = Record<string, unknown>;

export interface SqlReader {
  readonly dialect: 'sqlite3' | 'pg';
  all<T = Row>(sql: string, params?: SqlValue[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
  close(): Promise<void>;
}

const PG_READERS = 4;
const requireCjs = createRequire(import.meta.url);

export function openReader(storage: StorageInfo): SqlReader {
  return storage.client === 'pg' ? new PgReader(storage) : new SqliteReader(storage);
}

/**
 * SQLite reads run at once on the calling thread (better-sqlite3), on a read-only connection of their
 * own: a read never waits for the writer's transaction nor sees what it has not committed.
 */
class SqliteReader implements SqlReader {
  readonly dialect = 'sqlite3';
  private db: import('better-sqlite3').Database | undefined;

  constructor(private readonly storage: StorageInfo) {}

  async all<T>(sql: string, params: SqlValue[] = []): Promise<T[]> {
    return prepared(this.open(), sql).all(params.map(bindable)) as T[];
  }

  async get<T>(sql: string, params: SqlValue[] = []): Promise<T | undefined> {
    return prepared(this.open(), sql).get(params.map(bindable)) as T | undefined;
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
  }

  private open(): import('better-sqlite3').Database {
    this.db ??= openSqlite(sqliteFile(this.storage), { readonly: true, timeout: SQLITE_BUSY_TIMEOUT_MS });
    return this.db;
  }
}

/** SQLite stores booleans as 0 and 1; better-sqlite3 binds no boolean. */
function bindable(value: SqlValue): Exclude<SqlValue, boolean> {
  return typeof value === 'boolean' ? Number(value) : value;
}

type PgPool = import('pg').Pool;

class PgReader implements SqlReader {
  readonly dialect = 'pg';
  private pool: PgPool | undefined;
  /** `?` placeholders rewritten to `$n` once per statement, and the statement's name on every connection. */
  private readonly prepared = new Map<string, { name: string; text: string }>();

  constructor(private readonly storage: StorageInfo) {}

  async all<T>(sql: string, params: SqlValue[] = []): Promise<T[]> {
    let statement = this.prepared.get(sql);
    if (!statement) {
      let n = 0;
      statement = { name: `roost_read_${this.prepared.size + 1}`, text: sql.replace(/\?/g, () => `$${++n}`) };
      this.prepared.set(sql, statement);
    }
    const result = await this.connect().query({ ...statement, values: params });
    return result.rows as T[];
  }

  async get<T>(sql: string, params: SqlValue[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async close(): Promise<void> {
    await this.pool?.end();
    this.pool = undefined;
  }

  private connect(): PgPool {
    if (!this.pool) {
      const { Pool } = requireCjs('pg') as typeof import('pg');
      const schema = this.storage.schema;
      this.pool = new Pool({
        connectionString: this.storage.connection as string,
        types: pgTypes(),
        max: PG_READERS,
        ...(schema ? { options: `-c search_path=${schema}` } : {}),
      });
      // An idle connection the server cut (a restart): the pool drops it and connects anew on the next
      // read. Unheard, the event would end the process.
      this.pool.on('error', () => undefined);
    }
    return this.pool;
  }
}
