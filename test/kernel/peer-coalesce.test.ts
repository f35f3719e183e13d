// Peer's coalesceWrites (what the host uses on a plugin's stdin): the first frame of an event-loop turn
// is written at once, the rest of the turn's frames go out together in one write, in order, and
// ending the stream flushes frames still gathered. A deferred frame (an event, deferMs) leaves at once
// after a quiet spell; while the last write is recent, deferred frames wait for the next frame, the end of
// a turn that wrote one, or deferMs after that write.
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

  it('writes a deferred frame at once after a quiet spell, and keeps later ones for the next frame, which takes them along in one write, in order', async () => {
    const { sink, batches, frames } = recordingSink();
    const peer = new Peer(sink, { coalesceWrites: true, deferMs: 60_000 });
    peer.notifyDeferred({ type: 'event', n: 0 });
    while (batches.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    for (let n = 1; n < 3; n++) peer.notifyDeferred({ type: 'event', n });
    await nextTurn();
    assert.equal(batches.length, 1, 'deferred frames wait while the last write is recent');
    peer.notify({ type: 'request', n: 3 });
    assert.deepEqual(batches.map((b) => b.length), [1, 3], 'the first frame of the turn takes them along at once');
    peer.notifyDeferred({ type: 'event', n: 4 });
    await nextTurn();
    assert.deepEqual(batches.map((b) => b.length), [1, 3, 1], 'a turn that wrote a frame ends with the deferred ones out');
    assert.deepEqual(frames().map((f) => f.n), [0, 1, 2, 3, 4]);
  });

  it('writes deferred frames alone once deferMs has passed since the last write', async () => {
    const { sink, batches, frames } = recordingSink();
    const peer = new Peer(sink, { coalesceWrites: true, deferMs: 5 });
    peer.notify({ type: 'request', n: 0 });
    await nextTurn();
    for (let n = 1; n < 4; n++) peer.notifyDeferred({ type: 'event', n });
    assert.equal(batches.length, 1);
    while (batches.length === 1) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(batches.map((b) => b.length), [1, 3]);
    assert.deepEqual(frames().map((f) => f.n), [0, 1, 2, 3]);
  });

  it('writes every frame on its own without the option', () => {
    const { sink, batches } = recordingSink();
    const peer = new Peer(sink);
    for (let n = 0; n < 3; n++) peer.notify({ type: 'event', n });
    peer.notifyDeferred({ type: 'event', n: 3 });
    assert.equal(batches.length, 4);
  });
});
