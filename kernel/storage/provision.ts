// The kernel's database and the one it provisions for each extension: a SQLite file in the
// extension's own data folder (<data>/extensions/<name>/<name>.sqlite), or a PostgreSQL schema per
// extension when ROOST_DATABASE_URL is postgres.
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Knex } from 'knex';
import type { StorageInfo } from '../../protocol/messages.js';
import { migrate, openDatabase } from '../../protocol/storage.js';
import type { ServerConfig } from '../config.js';
import { kernelMigrations } from './migrations.js';

export const KERNEL_DB = 'kernel';

export function isPostgres(config: ServerConfig): boolean {
  return config.databaseUrl !== undefined && /^postgres(ql)?:\/\//.test(config.databaseUrl);
}

export async function storageFor(config: ServerConfig, owner: string): Promise<StorageInfo> {
  if (isPostgres(config)) {
    const schema = owner === KERNEL_DB ? 'roost_kernel' : `roost_ext_${owner.replace(/-/g, '_')}`;
    const admin = openDatabase({ client: 'pg', connection: config.databaseUrl! });
    try {
      await admin.raw('CREATE SCHEMA IF NOT EXISTS ??', [schema]);
    } finally {
      await admin.destroy();
    }
    return { client: 'pg', connection: config.databaseUrl!, schema };
  }
  const dir = owner === KERNEL_DB ? config.dataDir : await extensionFolder(config, owner);
  await mkdir(dir, { recursive: true });
  return { client: 'sqlite3', connection: { filename: join(dir, `${owner}.sqlite`) } };
}

/** The one folder an extension may write: its SQLite database and its scratch space (tmp/). */
export async function extensionFolder(config: ServerConfig, name: string): Promise<string> {
  const dir = join(config.dataDir, 'extensions', name);
  await mkdir(join(dir, 'tmp'), { recursive: true });
  return dir;
}

/** Where tenants other than the instance's own keep their projects (config.folderPerTenant), or undefined. */
export function tenantWorkspaces(config: ServerConfig): string | undefined {
  return config.folderPerTenant ? join(config.dataDir, 'workspaces') : undefined;
}

/** Data dirs of the older layout kept every database at <data>/extensions/<name>.sqlite: each moves into its folder. */
async function moveLegacyDatabases(config: ServerConfig): Promise<void> {
  const parent = join(config.dataDir, 'extensions');
  const files = (await readdir(parent).catch(() => [] as string[])).filter((f) => f.endsWith('.sqlite'));
  for (const name of files.map((f) => f.slice(0, -'.sqlite'.length))) {
    const dir = await extensionFolder(config, name);
    if (existsSync(join(dir, `${name}.sqlite`))) continue;
    for (const suffix of ['.sqlite', '.sqlite-wal', '.sqlite-shm']) {
      await rename(join(parent, `${name}${suffix}`), join(dir, `${name}${suffix}`)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    }
  }
}

export async function openKernelDatabase(config: ServerConfig): Promise<{ db: Knex; schemaVersion: number; storage: StorageInfo }> {
  const storage = await storageFor(config, KERNEL_DB);
  if (!isPostgres(config)) await moveLegacyDatabases(config);
  const db = openDatabase(storage);
  const schemaVersion = await migrate(db, kernelMigrations);
  return { db, schemaVersion, storage };
}
