// The kernel's database and the one it provisions for each extension: a SQLite file in the
// extension's own data folder (<data>/extensions/<name>/<name>.sqlite), or, when ROOST_DATABASE_URL is
// postgres, schema roost_kernel for the kernel and a schema and login role per extension (pg-roles.ts).
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Knex } from 'knex';
import type { StorageInfo } from '../../protocol/messages.js';
import { migrate, openDatabase } from '../../lib/storage.js';
import type { ServerConfig } from '../config.js';
import { kernelMigrations } from './migrations.js';
import { PgRelays } from './pg-relay.js';
import { KERNEL_SCHEMA, prepareDatabase, provisionExtension } from './pg-roles.js';

export const KERNEL_DB = 'kernel';

export function isPostgres(config: ServerConfig): boolean {
  return config.databaseUrl !== undefined && /^postgres(ql)?:\/\//.test(config.databaseUrl);
}

/**
 * The storage an extension's init carries: its SQLite file, or its PostgreSQL schema and role (made by
 * the kernel's connection), reached through a relay socket in its own folder (`relays`, on PostgreSQL).
 */
export async function storageFor(config: ServerConfig, kernelDb: Knex, extension: string, relays?: PgRelays): Promise<StorageInfo> {
  const dir = await extensionFolder(config, extension);
  if (isPostgres(config)) return provisionExtension(kernelDb, config.databaseUrl!, extension, await relays?.open(extension, dir));
  return { client: 'sqlite3', connection: { filename: join(dir, `${extension}.sqlite`) }, synchronous: config.sqliteSynchronous };
}

/**
 * Whether the extension has stored nothing here yet: its SQLite file is made when it first starts. On
 * PostgreSQL another instance may have started it, so this is never said there.
 */
export function storedNothing(config: ServerConfig, extension: string): boolean {
  return !isPostgres(config) && !existsSync(join(config.dataDir, 'extensions', extension, `${extension}.sqlite`));
}

/** The relays of extensions' database connections to the PostgreSQL server of ROOST_DATABASE_URL. */
export function pgRelays(config: ServerConfig): PgRelays | undefined {
  if (!isPostgres(config)) return undefined;
  const url = new URL(config.databaseUrl!);
  return new PgRelays({ host: url.hostname || 'localhost', port: Number(url.port || 5432) });
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

async function kernelStorage(config: ServerConfig): Promise<StorageInfo> {
  if (isPostgres(config)) {
    const admin = openDatabase({ client: 'pg', connection: config.databaseUrl! });
    try {
      await prepareDatabase(admin);
    } finally {
      await admin.destroy();
    }
    return { client: 'pg', connection: config.databaseUrl!, schema: KERNEL_SCHEMA };
  }
  await mkdir(config.dataDir, { recursive: true });
  await moveLegacyDatabases(config);
  return { client: 'sqlite3', connection: { filename: join(config.dataDir, `${KERNEL_DB}.sqlite`) }, synchronous: config.sqliteSynchronous };
}

export async function openKernelDatabase(config: ServerConfig): Promise<{ db: Knex; schemaVersion: number; storage: StorageInfo }> {
  const storage = await kernelStorage(config);
  const db = openDatabase(storage);
  const schemaVersion = await migrate(db, kernelMigrations);
  return { db, schemaVersion, storage };
}
