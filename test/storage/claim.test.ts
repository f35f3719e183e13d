// Queued work claimed by two processes racing (each with its own connections, like two instances):
// every item runs exactly once, on SQLite and on PostgreSQL (SELECT … FOR UPDATE SKIP LOCKED).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import type { StorageInfo } from '../../protocol/messages.js';
import { openDatabase } from '../../lib/storage.js';
import { sharedPostgres, stopSharedPostgres } from '../helpers/postgres.js';
import { STORES } from './support.js';

after(() => stopSharedPostgres());

const ITEMS = 100;

for (const store of STORES) {
  describe(`claiming queued work on ${store}`, () => {
    it(`two processes race for ${ITEMS} items: each runs exactly once`, async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'roost-claim-'));
      const storage: StorageInfo = store === 'postgres'
        ? { client: 'pg', connection: await (await sharedPostgres()).createDatabase() }
        : { client: 'sqlite3', connection: { filename: join(dir, 'queue.sqlite') } };
      const db = openDatabase(storage);
      try {
        await db.schema.createTable('queue', (t) => {
          t.increments('id');
          t.string('state').notNullable();
          t.string('claimed_by');
        });
        await db.schema.createTable('runs', (t) => {
          t.integer('item_id').notNullable();
          t.string('worker').notNullable();
        });
        await db('queue').insert(Array.from({ length: ITEMS }, () => ({ state: 'queued' })));
        const worker = (name: string) => execa(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'claim-worker.ts'), JSON.stringify(storage), name]);
        await Promise.all([worker('one'), worker('two')]);
        const runs: Array<{ item_id: number; worker: string }> = await db('runs').select();
        assert.equal(runs.length, ITEMS, 'as many runs as items');
        assert.equal(new Set(runs.map((r) => r.item_id)).size, ITEMS, 'no item ran twice');
        const queue = new Map((await db('queue').select()).map((row: { id: number; state: string; claimed_by: string }) => [row.id, row]));
        for (const run of runs) {
          assert.equal(queue.get(run.item_id)?.state, 'done');
          assert.equal(queue.get(run.item_id)?.claimed_by, run.worker, 'run by the process that claimed it');
        }
        t.diagnostic(`runs per process: one ${runs.filter((r) => r.worker === 'one').length}, two ${runs.filter((r) => r.worker === 'two').length}`);
      } finally {
        await db.destroy();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
}
