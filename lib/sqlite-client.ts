// knex's better-sqlite3 client, with each connection's prepared statements kept by their SQL text.
// knex prepares every query afresh: on a small query that was a fifth of its cost. A statement stays
// valid across schema changes (SQLite prepares it again itself), so only the number kept is bounded:
// queries whose text varies (an IN list's length) push out the oldest.
import { createRequire } from 'node:module';
import Sqlite from 'better-sqlite3';
import BetterSqlite3Client from 'knex/lib/dialects/better-sqlite3/index.js';
import { wrote } from './quiet-checkpoint.js';

type Knex = import('knex').Knex;
type Database = import('better-sqlite3').Database;
type Statement = import('better-sqlite3').Statement;
interface QueryObject { sql?: string; bindings?: unknown[]; response?: unknown; context?: { lastID: number | bigint; changes: number } }

const MAX_STATEMENTS = 500;
const kept = new WeakMap<Database, Map<string, Statement>>();
/**
 * The addon's path, given to better-sqlite3: found on its own, through the `bindings` package, it costs
 * every process's start a dozen probes of the file system and a stack trace.
 */
let nativeBinding: string | undefined;

export class SqliteClient extends BetterSqlite3Client {
  declare connectionSettings: { filename: string };

  async acquireRawConnection(): Promise<Database> {
    return openSqlite(this.connectionSettings.filename);
  }

  async destroyRawConnection(connection: Database): Promise<void> {
    connection.close();
  }

  async _query(connection: Database, obj: QueryObject): Promise<QueryObject> {
    if (!obj.sql) throw new Error('The query is empty');
    const statement = prepared(connection, obj.sql);
    const bindings = this._formatBindings(obj.bindings);
    if (statement.reader) {
      obj.response = statement.all(bindings);
      return obj;
    }
    const result = statement.run(bindings);
    wrote(connection);
    obj.response = result;
    obj.context = { lastID: result.lastInsertRowid, changes: result.changes };
    return obj;
  }
}

export function openSqlite(filename: string, options: { readonly?: boolean; timeout?: number } = {}): Database {
  nativeBinding ??= createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
  return new Sqlite(filename, { ...options, nativeBinding });
}

/** `sql` prepared on `db`, once while it is among the last MAX_STATEMENTS used there. */
export function prepared(db: Database, sql: string): Statement {
  let statements = kept.get(db);
  if (!statements) kept.set(db, (statements = new Map()));
  let statement = statements.get(sql);
  if (statement) {
    statements.delete(sql);
  } else {
    statement = db.prepare(sql);
    if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value!);
  }
  statements.set(sql, statement);
  return statement;
}

/**
 * Runs `sql` once for each row (its parameters named, `@column`), all in one transaction, on the
 * connection of a knex SQLite database, taken from knex's pool as its own queries take it (so never in
 * the middle of another's transaction): knex's insert without building the query every time, for a
 * write made on every request.
 */
export async function runForEach(db: Knex, sql: string, rows: readonly object[]): Promise<void> {
  const connection = (await db.client.acquireConnection()) as Database;
  try {
    const statement = prepared(connection, sql);
    if (rows.length === 1) statement.run(rows[0]);
    else connection.transaction(() => rows.forEach((row) => statement.run(row)))();
    wrote(connection);
  } finally {
    await db.client.releaseConnection(connection);
  }
}
