// How often SQLite syncs to disk: a database is opened with the storage's `synchronous`
// (ROOST_SQLITE_SYNCHRONOUS, `normal` by default, for the kernel's and every extension's), and one given
// none syncs at every commit (`full`).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../kernel/config.js';
import { openDatabase, syncCommitted } from '../../lib/storage.js';
import type { StorageInfo } from '../../protocol/messages.js';
import { selectRows } from '../kernel/sqlite-file.js';

describe('SQLite synchronous', () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(join(tmpdir(), 'roost-synchronous-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  /** PRAGMA synchronous as SQLite reports it: 1 is NORMAL, 2 is FULL. */
  async function synchronousOf(storage: Omit<StorageInfo, 'client' | 'connection'>, name: string): Promise<number> {
    const db = openDatabase({ client: 'sqlite3', connection: { filename: join(dir, `${name}.sqlite`) }, ...storage });
    try {
      const rows = (await db.raw('PRAGMA synchronous')) as Array<{ synchronous: number }>;
      return rows[0]!.synchronous;
    } finally {
      await db.destroy();
    }
  }

  it('opens a database with the synchronous its storage names, and FULL when it names none', async () => {
    assert.equal(await synchronousOf({ synchronous: 'normal' }, 'normal'), 1);
    assert.equal(await synchronousOf({ synchronous: 'full' }, 'full'), 2);
    assert.equal(await synchronousOf({}, 'kernel'), 2);
  });

  it('takes normal by default, full on request, and refuses anything else', () => {
    assert.equal(loadConfig({}, {}).sqliteSynchronous, 'normal');
    assert.equal(loadConfig({}, { ROOST_SQLITE_SYNCHRONOUS: 'full' }).sqliteSynchronous, 'full');
    assert.throws(() => loadConfig({}, { ROOST_SQLITE_SYNCHRONOUS: 'off' }), /ROOST_SQLITE_SYNCHRONOUS must be "normal" or "full", got "off"/);
  });

  it('syncs the commits in a WAL from its own descriptor, and has nothing to sync once the WAL is gone', async () => {
    const filename = join(dir, 'synced.sqlite');
    const db = openDatabase({ client: 'sqlite3', connection: { filename }, synchronous: 'normal' });
    await db.schema.createTable('t', (t) => t.integer('n'));
    await db('t').insert({ n: 1 });
    await syncCommitted(db);
    await db.destroy();
    // The last connection closed folded the WAL into the database and removed it.
    await syncCommitted(db);
    assert.deepEqual(await selectRows(filename, 'SELECT n FROM t'), [{ n: 1 }]);
  });
});
