// A consistent copy of every database, into <data>/backups/<id>/; the answer says how it was made:
// - `vacuum_into` (SQLite): VACUUM INTO for the kernel's file and each extension's;
// - `pg_dump` (PostgreSQL, when pg_dump can be run): one snapshot of every roost_* schema as SQL;
// - `export` (PostgreSQL without pg_dump): every row of every roost_* table as JSON lines, read in one
//   REPEATABLE READ transaction (so one snapshot) — data only, the schemas come from the migrations.
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import type { Knex } from 'knex';
import { RoostError } from '../../protocol/errors.js';
import { openDatabase } from '../../lib/storage.js';
import type { ServerConfig } from '../config.js';
import { isPostgres, KERNEL_DB } from './provision.js';

export interface BackupResult {
  id: string;
  dir: string;
  method: 'vacuum_into' | 'pg_dump' | 'export';
  databases: Array<{ name: string; file: string; bytes: number }>;
}

/** Rows read per query by the export (all in one snapshot). */
const EXPORT_PAGE = 1_000;

export async function backupAll(config: ServerConfig, kernelDb: Knex): Promise<BackupResult> {
  // Two backups in the same millisecond still get their own folder (VACUUM INTO refuses an existing file).
  const id = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
  const dir = join(config.dataDir, 'backups', id);
  await mkdir(dir, { recursive: true });
  if (!isPostgres(config)) return backupSqlite(config, kernelDb, id, dir);
  return (await pgDump(config, id, dir)) ?? exportPostgres(kernelDb, id, dir);
}

async function backupSqlite(config: ServerConfig, kernelDb: Knex, id: string, dir: string): Promise<BackupResult> {
  const databases: BackupResult['databases'] = [];
  const copy = async (name: string, db: Knex) => {
    const file = join(dir, `${name}.sqlite`);
    await db.raw('VACUUM INTO ?', [file]);
    databases.push({ name, file, bytes: (await stat(file)).size });
  };
  await copy(KERNEL_DB, kernelDb);
  const extDir = join(config.dataDir, 'extensions');
  // Each extension's database is <data>/extensions/<name>/<name>.sqlite.
  const names = (await readdir(extDir, { withFileTypes: true }).catch(() => [])).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  for (const name of names.filter((n) => existsSync(join(extDir, n, `${n}.sqlite`)))) {
    const db = openDatabase({ client: 'sqlite3', connection: { filename: join(extDir, name, `${name}.sqlite`) } });
    try {
      await copy(`extension:${name}`, db);
    } finally {
      await db.destroy();
    }
  }
  return { id, dir, method: 'vacuum_into', databases };
}

/** pg_dump of every roost_* schema, or undefined when there is no pg_dump to run (ROOST_PG_DUMP=""). */
async function pgDump(config: ServerConfig, id: string, dir: string): Promise<BackupResult | undefined> {
  if (!config.pgDump) return undefined;
  const file = join(dir, 'roost.sql');
  // The password goes in the environment, not the command line that `ps` shows.
  const url = new URL(config.databaseUrl!);
  const password = decodeURIComponent(url.password);
  url.password = '';
  // execa is loaded here, on the rare backup of a PostgreSQL store, not with the kernel.
  const { execa } = await import('execa');
  const result = await execa(config.pgDump, ['--no-owner', '--schema=roost_*', '--file', file, '--dbname', url.toString()], {
    reject: false,
    env: password ? { PGPASSWORD: password } : {},
  });
  if ((result as { code?: string }).code === 'ENOENT' || result.exitCode === 127) return undefined;
  if (result.exitCode !== 0) throw new RoostError('UPSTREAM_ERROR', `pg_dump failed: ${String(result.stderr).trim() || `exit ${result.exitCode}`}`);
  return { id, dir, method: 'pg_dump', databases: [{ name: 'postgres', file, bytes: (await stat(file)).size }] };
}

/** One line per row: {"schema", "table", "row"}. */
async function exportPostgres(kernelDb: Knex, id: string, dir: string): Promise<BackupResult> {
  const file = join(dir, 'roost.jsonl');
  const out = createWriteStream(file);
  const write = async (line: string) => {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  };
  try {
    await kernelDb.transaction(async (trx) => {
      const tables: Array<{ schema: string; table: string }> = (await trx.raw(
        "SELECT table_schema AS schema, table_name AS table FROM information_schema.tables WHERE table_schema LIKE 'roost\\_%' AND table_type = 'BASE TABLE' ORDER BY 1, 2",
      )).rows;
      for (const { schema, table } of tables) {
        // ctid orders the pages within the snapshot: every row once.
        for (let offset = 0; ; offset += EXPORT_PAGE) {
          const rows: unknown[] = (await trx.raw('SELECT * FROM ??.?? ORDER BY ctid LIMIT ? OFFSET ?', [schema, table, EXPORT_PAGE, offset])).rows;
          for (const row of rows) await write(JSON.stringify({ schema, table, row }));
          if (rows.length < EXPORT_PAGE) break;
        }
      }
    }, { isolationLevel: 'repeatable read', readOnly: true });
  } finally {
    out.end();
    await once(out, 'close');
  }
  return { id, dir, method: 'export', databases: [{ name: 'postgres', file, bytes: (await stat(file)).size }] };
}
