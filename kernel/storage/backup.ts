// A consistent copy of every database: SQLite's VACUUM INTO for the kernel and each extension file,
// pg_dump of each schema when the data lives in PostgreSQL.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Knex } from 'knex';
import { RoostError } from '../../protocol/errors.js';
import { openDatabase } from '../../protocol/storage.js';
import type { ServerConfig } from '../config.js';
import { isPostgres, KERNEL_DB } from './provision.js';

export interface BackupResult {
  id: string;
  dir: string;
  databases: Array<{ name: string; file: string; bytes: number }>;
}

export async function backupAll(config: ServerConfig, kernelDb: Knex): Promise<BackupResult> {
  // Two backups in the same millisecond still get their own folder (VACUUM INTO refuses an existing file).
  const id = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
  const dir = join(config.dataDir, 'backups', id);
  await mkdir(dir, { recursive: true });
  return isPostgres(config) ? backupPostgres(config, id, dir) : backupSqlite(config, kernelDb, id, dir);
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
  return { id, dir, databases };
}

async function backupPostgres(config: ServerConfig, id: string, dir: string): Promise<BackupResult> {
  const file = join(dir, 'roost.sql');
  const result = await execa('pg_dump', ['--no-owner', '--schema=roost_*', '--file', file, config.databaseUrl!], { reject: false });
  if (result.exitCode !== 0) throw new RoostError('UPSTREAM_ERROR', `pg_dump failed: ${String(result.stderr).trim() || `exit ${result.exitCode}`}`);
  return { id, dir, databases: [{ name: 'postgres', file, bytes: (await stat(file)).size }] };
}
