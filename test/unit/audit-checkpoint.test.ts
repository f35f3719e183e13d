// The audit checkpoint file's saves: coalesced and spaced (the first write at once, the next no sooner
// than the spacing allows, holding the newest head), hurried by idle() and by a head that carries lost
// appends; none written before the chain it vouches for is durable. The spacing here is a minute, so a
// save that was not hurried would hold its test up to the test's own timeout instead of passing by luck.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { CheckpointFile, type Checkpoint } from '../../kernel/audit/checkpoint.js';

const MINUTE = 60_000;
const head = (seq: number): Checkpoint => ({ seq, hash: `h${seq}`, ts: new Date(0).toISOString() });

describe('audit checkpoint saves', { timeout: 30_000 }, () => {
  const dirs: string[] = [];
  let file: CheckpointFile;
  beforeEach(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'roost-checkpoint-'));
    dirs.push(dir);
    file = (await CheckpointFile.open(dir, { spacingMs: MINUTE })).file;
  });
  after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  const stored = async () => {
    const read = await file.read();
    assert.equal(read.state, 'valid');
    return read.state === 'valid' ? read.checkpoint : undefined;
  };

  it('writes the first save at once, and idle() brings the spaced ones that follow to disk, newest head last', async () => {
    await file.save(head(1));
    assert.equal((await stored())?.seq, 1);
    const saves = [2, 3, 4].map((seq) => file.save(head(seq)));
    await file.idle();
    await Promise.all(saves);
    assert.equal((await stored())?.seq, 4);
  });

  it('writes a head that carries lost appends without waiting out the spacing', async () => {
    await file.save(head(1));
    await file.save({ ...head(2), unrecorded: { count: 3, since: new Date(0).toISOString() } });
    assert.deepEqual((await stored())?.unrecorded, { count: 3, since: new Date(0).toISOString() });
  });

  it('writes nothing before the chain it vouches for is durable, and nothing when that fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'roost-checkpoint-'));
    dirs.push(dir);
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    let durable!: () => void;
    const chainDurable = () => (asked(), new Promise<void>((resolve) => (durable = resolve)));
    const waiting = (await CheckpointFile.open(dir, { spacingMs: MINUTE, chainDurable })).file;
    const saved = waiting.save(head(7));
    await wasAsked;
    assert.equal((await waiting.read()).state, 'missing');
    durable();
    await saved;
    assert.equal((await waiting.read()).state, 'valid');

    const failing = (await CheckpointFile.open(dir, { spacingMs: 0, chainDurable: () => Promise.reject(new Error('EIO')) })).file;
    await assert.rejects(failing.save(head(8)), /EIO/);
    const kept = await failing.read();
    assert.equal(kept.state === 'valid' && kept.checkpoint.seq, 7);
  });
});
