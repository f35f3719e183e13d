// Every SQLite database (the kernel's and each extension's, all opened by openDatabase) keeps its WAL
// bounded: a burst of writes grows it, and it is cut back to WAL_SIZE_LIMIT_BYTES once it is reset
// after a checkpoint, instead of keeping the largest size it ever grew to.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { openDatabase, WAL_SIZE_LIMIT_BYTES } from '../../lib/storage.js';

/** A WAL holds whole frames (a page and its header) and the transaction that reset it: allow a little over. */
const SLACK_BYTES = 64 * 1024;

describe('SQLite WAL size', () => {
  let dir: string;
  let db: Knex;
  const walSize = async () => (await stat(join(dir, 'bounded.sqlite-wal'))).size;
  const row = (i: number) => ({ body: `${i} `.padEnd(2000, 'x') });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'roost-wal-'));
    db = openDatabase({ client: 'sqlite3', connection: { filename: join(dir, 'bounded.sqlite') } });
    await db.schema.createTable('burst', (t) => {
      t.increments('id');
      t.text('body');
    });
  });
  after(async () => {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  it('stays near its bound through a burst of small writes', async () => {
    let largest = 0;
    for (let i = 0; i < 3000; i++) {
      await db('burst').insert(row(i));
      if (i % 100 === 0) largest = Math.max(largest, await walSize());
    }
    largest = Math.max(largest, await walSize());
    assert.ok(largest <= WAL_SIZE_LIMIT_BYTES + SLACK_BYTES, `the WAL grew to ${largest} bytes`);
  });

  it('shrinks back after one large transaction, with the next writes', async () => {
    await db.transaction(async (trx) => {
      for (let i = 0; i < 40; i++) await trx('burst').insert(Array.from({ length: 100 }, (_, j) => row(i * 100 + j)));
    });
    assert.ok((await walSize()) > 4 * WAL_SIZE_LIMIT_BYTES, 'the transaction itself needs a large WAL');
    for (let i = 0; i < 5; i++) await db('burst').insert(row(i));
    const size = await walSize();
    assert.ok(size <= WAL_SIZE_LIMIT_BYTES + SLACK_BYTES, `the WAL is still ${size} bytes`);
  });
});
