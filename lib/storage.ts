// Opening the database an extension (or the kernel) was given, and running its numbered migrations.
// SQLite: WAL (bounded: see WAL_SIZE_LIMIT_BYTES), foreign keys on, a busy timeout. PostgreSQL: the owner's own schema as search path,
// and migrations serialised across every instance sharing the database by an advisory lock.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import knexFactory, { type Knex } from 'knex';
import type { StorageInfo } from '../protocol/messages.js';
import { SqliteClient } from './sqlite-client.js';

export interface Migration {
  /** Numbered and never edited after it lands: "001_projects". */
  name: string;
  up(db: Knex): Promise<void>;
  down?(db: Knex): Promise<void>;
}

export const SQLITE_BUSY_TIMEOUT_MS = 5_000;
/**
 * A WAL is checkpointed once its writes pause (lib/quiet-checkpoint.ts), and by SQLite within the commit
 * that takes it past WAL_CHECKPOINT_BYTES (4,096 pages of 4 KiB) in a burst that does not pause; a WAL
 * reset after a checkpoint is cut back to WAL_SIZE_LIMIT_BYTES: without the limit it keeps the largest
 * size it ever grew to.
 */
export const WAL_CHECKPOINT_BYTES = 16 * 1024 * 1024;
export const WAL_SIZE_LIMIT_BYTES = 1024 * 1024;
const SQLITE_PRAGMAS = (synchronous: 'FULL' | 'NORMAL') => [
  'journal_mode = WAL',
  `synchronous = ${synchronous}`,
  'foreign_keys = ON',
  `busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`,
  `journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`,
  `wal_autocheckpoint = ${WAL_CHECKPOINT_BYTES / 4096}`,
];

/**
 * COUNT and bigint columns (int8) and SUM (numeric) arrive from pg as strings; the stores count
 * micro-units and tokens well inside 2^53, so they become numbers, as SQLite gives them.
 */
export function pgTypes(): import('pg').CustomTypesConfig {
  // Loaded on first use: a process on SQLite never pays for the pg driver.
  const { types } = createRequire(import.meta.url)('pg') as typeof import('pg');
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === types.builtins.INT8 || oid === types.builtins.NUMERIC) return (value: string) => Number(value);
      return format === 'binary' ? types.getTypeParser(oid, 'binary') : types.getTypeParser(oid, 'text');
    }) as import('pg').CustomTypesConfig['getTypeParser'],
  };
}

export function openDatabase(storage: StorageInfo): Knex {
  if (storage.client === 'pg') {
    return knexFactory({
      client: 'pg',
      connection: { connectionString: storage.connection as string, types: pgTypes() } as Knex.PgConnectionConfig,
      searchPath: storage.schema ? [storage.schema] : undefined,
      pool: { min: 0, max: 10 },
    });
  }
  const filename = sqliteFile(storage);
  const pragmas = SQLITE_PRAGMAS(storage.synchronous === 'normal' ? 'NORMAL' : 'FULL');
  return knexFactory({
    client: SqliteClient as unknown as typeof Knex.Client,
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: import('better-sqlite3').Database, done: (err: Error | null, conn: unknown) => void) {
        try {
          for (const pragma of pragmas) conn.pragma(pragma);
          done(null, conn);
        } catch (err) {
          done(err as Error, conn);
        }
      },
    },
  });
}

/** The file of a SQLite storage. */
export function sqliteFile(storage: StorageInfo): string {
  return typeof storage.connection === 'string' ? storage.connection : storage.connection.filename;
}

/**
 * Makes every commit so far durable, without holding the event loop. A SQLite database in WAL mode with
 * `synchronous = NORMAL` syncs only at its checkpoints: a commit since the last one is in the WAL, whose
 * data is synced here from a descriptor of our own (a sync is of the file, whoever wrote it); one before
 * it is in the database file, which SQLite syncs when a checkpoint completes, before the WAL is reused.
 * PostgreSQL's commits are durable when they return.
 */
export async function syncCommitted(db: Knex): Promise<void> {
  if (db.client.config.client === 'pg') return;
  const { filename } = db.client.config.connection as { filename: string };
  let wal;
  try {
    wal = await open(`${filename}-wal`, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    await wal.datasync();
  } finally {
    await wal.close();
  }
}

/** Applies pending migrations in order; returns the schema version (the number of migrations applied). */
export async function migrate(db: Knex, migrations: Migration[], tableName = 'knex_migrations'): Promise<number> {
  // Most starts have nothing to migrate: one read of what was applied tells, where knex's migrator would
  // ask and build some eight queries (~30 ms of an extension's start). Anything else — a migration not
  // applied yet, one applied that this code does not know, no table yet — goes through the migrator.
  const applied = await appliedMigrations(db, tableName);
  if (applied?.size === migrations.length && migrations.every((m) => applied.has(m.name))) return applied.size;
  const source: Knex.MigrationSource<Migration> = {
    getMigrations: async () => migrations,
    getMigrationName: (m) => m.name,
    getMigration: async (m) => ({ up: (k: Knex) => m.up(k), down: (k: Knex) => (m.down ? m.down(k) : Promise.resolve()) }),
  };
  const run = async () => {
    // Whoever migrates holds the only right to (the SQLite file's one owner, or the advisory lock): a knex
    // lock left by a start killed mid-migration is stale, and would otherwise fail every start from here
    // on ("Migration table is already locked").
    if (await db.schema.hasTable(`${tableName}_lock`)) await db(`${tableName}_lock`).update({ is_locked: 0 });
    await db.migrate.latest({ migrationSource: source, tableName });
    const done = await db(tableName).count<{ n: number }[]>({ n: '*' });
    return Number(done[0]?.n ?? 0);
  };
  if (db.client.config.client !== 'pg') return run();
  // Several instances may start at once on one database: the first migrates, the others wait for it and
  // then find nothing left to do. The lock is held by a transaction of its own and ends with it.
  const schema = String(db.client.config.searchPath ?? 'public');
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', advisoryKey(`roost:migrate:${schema}:${tableName}`));
    return run();
  });
}

/** The names of the migrations applied, or undefined when there is no migrations table yet. */
async function appliedMigrations(db: Knex, tableName: string): Promise<Set<string> | undefined> {
  try {
    return new Set((await db(tableName).select<Array<{ name: string }>>('name')).map((row) => row.name));
  } catch {
    return undefined;
  }
}

/** The two 32-bit keys of an advisory lock named by `name` (the same on every instance). */
export function advisoryKey(name: string): [number, number] {
  const digest = createHash('sha256').update(name).digest();
  return [digest.readInt32BE(0), digest.readInt32BE(4)];
}
