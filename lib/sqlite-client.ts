// knex's better-sqlite3 client, with each connection's prepared statements kept by their SQL text.
// knex prepares every query afresh: on a small query that was a fifth of its cost. A statement stays
// valid across schema changes (SQLite prepares it again itself), so only the number kept is bounded:
// queries whose text varies (an IN list's length) push out the oldest.
import { createRequire } from 'node:module';
import Sqlite from 'better-sqlite3';
import BetterSqlite3Client from 'knex/lib/dialects/better-sqlite3/index.js';
import { wrote } from './quiet-checkpoint.js';

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
