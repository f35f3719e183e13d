// The read path of an extension's database: one trip to the database per query, with a prepared
// statement reused across requests, on read-only connections that do not wait for each other or for
// the writer (SQLite WAL lets readers run beside the single writer). Writes and migrations stay with
// knex (ctx.db); hot reads are written once as SQL with `?` placeholders and never compiled per request.
import { createRequire } from 'node:module';
import type { StorageInfo } from '../protocol/messages.js';
import { pgTypes } from '../lib/storage.js';

export type SqlValue = string | number | boolean | null;
type Row = Record<string, unknown>;

export interface SqlReader {
  readonly dialect: 'sqlite3' | 'pg';
  all<T = Row>(sql: string, params?: SqlValue[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
  close(): Promise<void>;
}

/** Two readers: a read waits for a connection only when two others are already running. */
const SQLITE_READERS = 2;
const PG_READERS = 4;
const BUSY_TIMEOUT_MS = 5_000;
const requireCjs = createRequire(import.meta.url);

export function openReader(storage: StorageInfo): SqlReader {
  return storage.client === 'pg' ? new PgReader(storage) : new SqliteReader(storage);
}

type SqliteDatabase = import('sqlite3').Database;
type SqliteStatement = import('sqlite3').Statement;

class SqliteReader implements SqlReader {
  readonly dialect = 'sqlite3';
  private connections: Array<{ db: SqliteDatabase; statements: Map<string, SqliteStatement> }> | undefined;
  private next = 0;

  constructor(private readonly storage: StorageInfo) {}

  all<T>(sql: string, params: SqlValue[] = []): Promise<T[]> {
    const statement = this.statement(sql);
    return new Promise((resolve, reject) => statement.all(params, (err: Error | null, rows: T[]) => (err ? reject(err) : resolve(rows))));
  }

  async get<T>(sql: string, params: SqlValue[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async close(): Promise<void> {
    const connections = this.connections ?? [];
    this.connections = undefined;
    await Promise.all(connections.map(({ db, statements }) => {
      for (const statement of statements.values()) statement.finalize();
      return new Promise<void>((resolve) => db.close(() => resolve()));
    }));
  }

  /** The prepared statement for `sql` on the next connection, prepared on first use there. */
  private statement(sql: string): SqliteStatement {
    const connections = (this.connections ??= this.open());
    const connection = connections[this.next++ % connections.length]!;
    let statement = connection.statements.get(sql);
    if (!statement) {
      statement = connection.db.prepare(sql);
      connection.statements.set(sql, statement);
    }
    return statement;
  }

  private open() {
    const sqlite3 = requireCjs('sqlite3') as typeof import('sqlite3');
    const { connection } = this.storage;
    const filename = typeof connection === 'string' ? connection : connection.filename;
    return Array.from({ length: SQLITE_READERS }, () => {
      const db = new sqlite3.Database(filename, sqlite3.OPEN_READONLY);
      db.configure('busyTimeout', BUSY_TIMEOUT_MS);
      return { db, statements: new Map<string, SqliteStatement>() };
    });
  }
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
