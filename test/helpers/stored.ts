// What an extension's database holds, read from outside the server as someone with a copy of it would:
// on SQLite the bytes of its file and write-ahead log, on PostgreSQL every row of its schema's tables,
// read with the database's superuser. For tests that secrets are stored sealed, on both stores.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { openDatabase } from '../../lib/storage.js';
import type { TestServer } from './server.js';

/** The extension's own database, opened as the test's admin (close it with destroy()). */
export function extensionDb(server: TestServer, extension: string): Knex {
  if (server.databaseUrl) return openDatabase({ client: 'pg', connection: server.databaseUrl, schema: schemaOf(extension) });
  return openDatabase({ client: 'sqlite3', connection: { filename: join(server.dataDir, 'extensions', extension, `${extension}.sqlite`) } });
}

/** Everything stored, as text (latin1 for the SQLite bytes, so any byte sequence is searchable). */
export async function storedText(server: TestServer, extension: string): Promise<string> {
  if (!server.databaseUrl) {
    const base = join(server.dataDir, 'extensions', extension, `${extension}.sqlite`);
    const files = await Promise.all([base, `${base}-wal`].map((f) => readFile(f).catch(() => Buffer.alloc(0))));
    return Buffer.concat(files).toString('latin1');
  }
  const db = extensionDb(server, extension);
  try {
    const tables = await db('information_schema.tables').where({ table_schema: schemaOf(extension) }).pluck<string[]>('table_name');
    const rows = await Promise.all(tables.map(async (table) => (await db.raw(`SELECT t::text AS row FROM "${schemaOf(extension)}"."${table}" t`)).rows.map((r: { row: string }) => r.row)));
    return rows.flat().join('\n');
  } finally {
    await db.destroy();
  }
}

const schemaOf = (extension: string) => `roost_ext_${extension.replace(/-/g, '_')}`;
