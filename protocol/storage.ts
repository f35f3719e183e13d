// Opening the database an extension (or the kernel) was given, and running its numbered migrations.
// SQLite: WAL, foreign keys on, a busy timeout. PostgreSQL: the owner's own schema as search path.
import knexFactory, { type Knex } from 'knex';
import type { StorageInfo } from './messages.js';

export interface Migration {
  /** Numbered and never edited after it lands: "001_projects". */
  name: string;
  up(db: Knex): Promise<void>;
  down?(db: Knex): Promise<void>;
}

const SQLITE_BUSY_TIMEOUT_MS = 5_000;

export function openDatabase(storage: StorageInfo): Knex {
  if (storage.client === 'pg') {
    return knexFactory({
      client: 'pg',
      connection: storage.connection as string,
      searchPath: storage.schema ? [storage.schema] : undefined,
      pool: { min: 0, max: 10 },
    });
  }
  const filename = typeof storage.connection === 'string' ? storage.connection : storage.connection.filename;
  return knexFactory({
    client: 'sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: { run(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) {
        conn.run('PRAGMA journal_mode = WAL', (e1) => {
          if (e1) return done(e1, conn);
          conn.run('PRAGMA foreign_keys = ON', (e2) => {
            if (e2) return done(e2, conn);
            conn.run(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`, (e3) => done(e3, conn));
          });
        });
      },
    },
  });
}

/** Applies pending migrations in order; returns the schema version (the number of migrations applied). */
export async function migrate(db: Knex, migrations: Migration[], tableName = 'knex_migrations'): Promise<number> {
  const source: Knex.MigrationSource<Migration> = {
    getMigrations: async () => migrations,
    getMigrationName: (m) => m.name,
    getMigration: async (m) => ({ up: (k: Knex) => m.up(k), down: (k: Knex) => (m.down ? m.down(k) : Promise.resolve()) }),
  };
  // A SQLite file has one owner, which is starting now: a lock left by a start killed mid-migration is
  // stale, and would otherwise fail every start from here on ("Migration table is already locked").
  if (db.client.config.client === 'sqlite3' && (await db.schema.hasTable(`${tableName}_lock`))) await db(`${tableName}_lock`).update({ is_locked: 0 });
  await db.migrate.latest({ migrationSource: source, tableName });
  const done = await db(tableName).count<{ n: number }[]>({ n: '*' });
  return Number(done[0]?.n ?? 0);
}
