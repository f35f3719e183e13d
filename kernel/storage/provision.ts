// The kernel's database and the one it provisions for each extension: a SQLite file per extension
// under the data dir, or a PostgreSQL schema per extension when ROOST_DATABASE_URL is postgres.
import { mkdir } from 'node:fs/promises';
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
  const dir = owner === KERNEL_DB ? config.dataDir : join(config.dataDir, 'extensions');
  await mkdir(dir, { recursive: true });
  return { client: 'sqlite3', connection: { filename: join(dir, `${owner}.sqlite`) } };
}

export async function openKernelDatabase(config: ServerConfig): Promise<{ db: Knex; schemaVersion: number; storage: StorageInfo }> {
  const storage = await storageFor(config, KERNEL_DB);
  const db = openDatabase(storage);
  const schemaVersion = await migrate(db, kernelMigrations);
  return { db, schemaVersion, storage };
}
