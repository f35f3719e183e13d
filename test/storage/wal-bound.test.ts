// Every SQLite database (the kernel's and each extension's, all opened by openDatabase) keeps its WAL
// bounded: a burst of writes that does not pause grows it to WAL_CHECKPOINT_BYTES at most; once writes
// pause it is checkpointed and emptied (lib/quiet-checkpoint.ts); and a WAL reset after a checkpoint is
// cut back to WAL_SIZE_LIMIT_BYTES instead of keeping the largest size it ever grew to.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { openDatabase, WAL_CHECKPOINT_BYTES, WAL_SIZE_LIMIT_BYTES } from '../../lib/storage.js';
import { QUIET_MS } from '../../lib/quiet-checkpoint.js';
import { waitFor } from '../helpers/wait.js';

/** A WAL holds whole frames (a page and its header) and the transaction that crossed the bound: allow a little over. */
const SLACK_BYTES = 64 * 1024;
/** A row of this size fills most of a page: each insert adds a frame of about 4 KiB to the WAL. */
const ROW_BYTES = 3_500;

describe('SQLite WAL size', () => {
  let dir: string;
  let db: Knex;
  const walSize = async () => (await stat(join(dir, 'bounded.sqlite-wal'))).size;
  const row = (i: number) => ({ body: `${i} `.padEnd(ROW_BYTES, 'x') });
  const emptied = () => waitFor('the WAL checkpointed and emptied once writes paused', async () => ((await walSize()) === 0 ? true : undefined), 10 * QUIET_MS);

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

  it('stays within its bound through a burst of writes that does not pause, and is emptied once they pause', async () => {
    const inserts = Math.ceil((1.5 * WAL_CHECKPOINT_BYTES) / 4096);
    let largest = 0;
    for (let i = 0; i < inserts; i++) {
      await db('burst').insert(row(i));
      if (i % 200 === 0) largest = Math.max(largest, await walSize());
    }
    largest = Math.max(largest, await walSize());
    assert.ok(largest > WAL_SIZE_LIMIT_BYTES, `the burst grew the WAL past ${WAL_SIZE_LIMIT_BYTES} bytes (to ${largest})`);
    assert.ok(largest <= WAL_CHECKPOINT_BYTES + SLACK_BYTES, `the WAL grew to ${largest} bytes`);
    await emptied();
    await db('burst').insert(row(0));
    assert.ok((await walSize()) <= 2 * 4096 + SLACK_BYTES);
  });

  it('is cut back at its next reset after a transaction larger than the bound, and emptied once writes pause', async () => {
    const rows = Math.ceil((1.25 * WAL_CHECKPOINT_BYTES) / 4096);
    await db.transaction(async (trx) => {
      for (let i = 0; i < rows; i += 100) await trx('burst').insert(Array.from({ length: 100 }, (_, j) => row(i + j)));
    });
    assert.ok((await walSize()) > WAL_CHECKPOINT_BYTES, 'the transaction itself needs a WAL larger than the bound');
    // Its commit took the WAL past the bound, so SQLite checkpointed it there: the next write resets it.
    await db('burst').insert(row(0));
    const size = await walSize();
    assert.ok(size <= WAL_SIZE_LIMIT_BYTES + SLACK_BYTES, `the WAL is still ${size} bytes`);
    await emptied();
  });
});
