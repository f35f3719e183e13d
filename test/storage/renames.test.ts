// An extension renamed by a release ([plugin] renamed_from) keeps what the server held under its former
// name (kernel/storage/renames.ts): its SQLite folder and file, or its PostgreSQL schema and role, the
// kernel's rows keyed by its name, and the operator's ROOST_EXT_<FORMER>_* settings. Carried once: a
// second start changes nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import type { ServerConfig } from '../../kernel/config.js';
import { extensionSettings } from '../../kernel/host/extension-settings.js';
import type { Manifest } from '../../kernel/host/manifest.js';
import { provisionExtension } from '../../kernel/storage/pg-roles.js';
import { openKernelDatabase } from '../../kernel/storage/provision.js';
import { carryRenamedExtensions } from '../../kernel/storage/renames.js';
import { openDatabase } from '../../lib/storage.js';
import { sharedPostgres } from '../helpers/postgres.js';

const renamed = { name: 'activity', renamedFrom: ['feed'] } as Manifest;
const now = new Date().toISOString();

/** The kernel's rows an extension named `name` has: a revoked grant, where it came from, a stored value. */
async function kernelRows(db: Knex, name: string): Promise<void> {
  await db('extension_grants').insert({ extension: name, capability: 'db', granted: false, updated_at: now });
  await db('extension_sources').insert({ name, dir: '/old/extensions/feed', loaded: false, updated_at: now });
  await db('plugin_kv').insert({ plugin: name, key: 'cursor', value: '42', updated_at: now });
}

async function rowsOf(db: Knex, name: string): Promise<unknown[]> {
  return [
    ...(await db('extension_grants').where({ extension: name }).select('capability', 'granted')),
    ...(await db('extension_sources').where({ name }).select('loaded')),
    ...(await db('plugin_kv').where({ plugin: name }).select('key', 'value')),
  ];
}

describe('a renamed extension keeps its data', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'roost-renames-'));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('on SQLite: its folder, its file and the kernel rows, once', async () => {
    const config = { dataDir } as ServerConfig;
    const { db } = await openKernelDatabase(config);
    try {
      const folder = join(dataDir, 'extensions', 'feed');
      await mkdir(join(folder, 'tmp'), { recursive: true });
      const old = openDatabase({ client: 'sqlite3', connection: { filename: join(folder, 'feed.sqlite') } });
      await old.schema.createTable('events', (t) => t.string('id'));
      await old('events').insert({ id: 'kept' });
      await old.destroy();
      await kernelRows(db, 'feed');
      const before = await rowsOf(db, 'feed');

      assert.deepEqual(await carryRenamedExtensions(config, db, [renamed]), ['feed → activity']);
      assert.equal(existsSync(folder), false, 'the former folder is gone');
      assert.ok(existsSync(join(dataDir, 'extensions', 'activity', 'tmp')), 'its scratch space came along');
      const moved = openDatabase({ client: 'sqlite3', connection: { filename: join(dataDir, 'extensions', 'activity', 'activity.sqlite') } });
      try {
        assert.deepEqual(await moved('events').select('id'), [{ id: 'kept' }]);
      } finally {
        await moved.destroy();
      }
      assert.deepEqual(await rowsOf(db, 'activity'), before, 'grants, source and stored values now under the new name');
      assert.deepEqual(await rowsOf(db, 'feed'), []);

      assert.deepEqual(await carryRenamedExtensions(config, db, [renamed]), [], 'a second start carries nothing');
      assert.deepEqual(await rowsOf(db, 'activity'), before);
    } finally {
      await db.destroy();
    }
  });

  it('on PostgreSQL: its schema and role, with their tables, once', async () => {
    const url = await (await sharedPostgres()).createDatabase('renames');
    const config = { dataDir: join(dataDir, 'pg'), databaseUrl: url } as ServerConfig;
    const { db } = await openKernelDatabase(config);
    try {
      const old = openDatabase(await provisionExtension(db, url, 'feed'));
      await old.schema.createTable('events', (t) => t.string('id'));
      await old('events').insert({ id: 'kept' });
      await old.destroy();
      await kernelRows(db, 'feed');

      assert.deepEqual(await carryRenamedExtensions(config, db, [renamed]), ['feed → activity']);
      const moved = openDatabase(await provisionExtension(db, url, 'activity'));
      try {
        assert.deepEqual(await moved('events').select('id'), [{ id: 'kept' }], 'the new role owns and reads the old tables');
      } finally {
        await moved.destroy();
      }
      const schemas = await db.raw<{ rows: Array<{ nspname: string }> }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'roost_ext_%' ORDER BY 1");
      assert.deepEqual(schemas.rows.map((r) => r.nspname), ['roost_ext_activity']);
      assert.deepEqual(await carryRenamedExtensions(config, db, [renamed]), []);
    } finally {
      await db.destroy();
    }
  });

  it("reads the operator's settings under the former name; the new name's win", () => {
    const env = { ROOST_EXT_FEED_PAGE: '10', ROOST_EXT_FEED_TICK_MS: '5', ROOST_EXT_ACTIVITY_TICK_MS: '7' };
    assert.deepEqual(extensionSettings(renamed, env), { PAGE: '10', TICK_MS: '7' });
  });
});
