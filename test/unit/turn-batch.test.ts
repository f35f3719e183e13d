// TurnBatch (sdk/turn-batch.ts): what is added in one turn of the event loop is written in one call,
// in order and at most `max` at a time; a failed write fails its own batch only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TurnBatch } from '../../sdk/turn-batch.js';

describe('TurnBatch', () => {
  it('writes the items of one turn together, in order, at most max per write', async () => {
    const writes: number[][] = [];
    const batch = new TurnBatch<number>(async (items) => void writes.push(items), 3);
    await Promise.all([1, 2, 3, 4, 5].map((n) => batch.add(n)));
    assert.deepEqual(writes, [[1, 2, 3], [4, 5]]);
  });

  it('sends what was added while a write ran in the next write', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const batch = new TurnBatch<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await first;
    });
    const one = batch.add(1);
    await new Promise((resolve) => setImmediate(resolve)); // the first write has begun
    const later = [batch.add(2), batch.add(3)];
    release();
    await Promise.all([one, ...later, batch.idle()]);
    assert.deepEqual(writes, [[1], [2, 3]]);
  });

  it('rejects the items of a failed write, and goes on with the next', async () => {
    let calls = 0;
    const batch = new TurnBatch<string>(async () => {
      if (++calls === 1) throw new Error('disk full');
    });
    const failed = [batch.add('a'), batch.add('b')];
    for (const p of failed) await assert.rejects(p, /disk full/);
    await batch.add('c');
    assert.equal(calls, 2);
  });
});
