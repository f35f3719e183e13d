// Peer's coalesceWrites (what the host uses on a plugin's stdin): the first frame of an event-loop turn
// is written at once, the rest of the turn's frames go out together in one write, in order, and
// ending the stream flushes frames still gathered.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';

type PeerModule = typeof import('../../protocol/peer.js');
const { Peer } = (await import(new URL('../../dist/protocol/peer.js', import.meta.url).href)) as PeerModule;

/** A sink that records each write it is handed: one entry per system-call-sized batch. */
function recordingSink() {
  const batches: string[][] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      batches.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      batches.push(chunks.map((c) => String(c.chunk)));
      done();
    },
  });
  const frames = () => batches.flat().join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { n: number });
  return { sink, batches, frames };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('Peer coalesceWrites', () => {
  it('writes the first frame of a turn at once and the others together, in order', async () => {
    const { sink, batches, frames } = recordingSink();
    const peer = new Peer(sink, { coalesceWrites: true });
    for (let n = 0; n < 5; n++) peer.notify({ type: 'event', n });
    assert.equal(batches.length, 1, 'only the first frame is out before the turn ends');
    await nextTurn();
    assert.deepEqual(batches.map((b) => b.length), [1, 4]);
    assert.deepEqual(frames().map((f) => f.n), [0, 1, 2, 3, 4]);

    peer.notify({ type: 'event', n: 5 });
    assert.equal(batches.length, 3, 'a lone frame in a later turn is written at once');
    await nextTurn();
    assert.deepEqual(frames().map((f) => f.n), [0, 1, 2, 3, 4, 5]);
  });

  it('flushes gathered frames when the stream is ended in the same turn', async () => {
    const { sink, frames } = recordingSink();
    const peer = new Peer(sink, { coalesceWrites: true });
    for (let n = 0; n < 3; n++) peer.notify({ type: 'event', n });
    sink.end();
    await new Promise((resolve) => sink.once('finish', resolve));
    assert.deepEqual(frames().map((f) => f.n), [0, 1, 2]);
  });

  it('writes every frame on its own without the option', () => {
    const { sink, batches } = recordingSink();
    const peer = new Peer(sink);
    for (let n = 0; n < 3; n++) peer.notify({ type: 'event', n });
    assert.equal(batches.length, 3);
  });
});
