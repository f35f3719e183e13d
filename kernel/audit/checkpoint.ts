// A signed copy of the audit chain's head, kept outside the audit table: `<data>/audit-head.json`
// holds {seq, hash, ts} and an HMAC-SHA256 under the secret in `<data>/audit.key` (0600, created on
// the first start). The chain alone cannot show that its newest entries were deleted, or that the
// whole chain was recomputed after an edit; the checkpoint can, unless the same hand also holds the key.
// Saves are coalesced: at most one write is under way and one waits, and the waiting one writes the
// newest head when it starts, so every save resolves once a head at least as new is on disk.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { open, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface Checkpoint {
  seq: number;
  hash: string;
  ts: string;
}

export type CheckpointRead =
  | { state: 'valid'; checkpoint: Checkpoint }
  | { state: 'missing' }
  | { state: 'invalid'; reason: string; claimed: Partial<Checkpoint> };

export class CheckpointFile {
  private readonly path: string;
  private latest: Checkpoint | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;

  private constructor(
    dataDir: string,
    private readonly key: string,
  ) {
    this.path = join(dataDir, 'audit-head.json');
  }

  /** Opens the checkpoint of a data dir; `keyCreated` says this start made the key (so no checkpoint could exist yet). */
  static async open(dataDir: string): Promise<{ file: CheckpointFile; keyCreated: boolean }> {
    const keyPath = join(dataDir, 'audit.key');
    const fresh = randomBytes(32).toString('hex');
    try {
      await writeFile(keyPath, fresh, { flag: 'wx', mode: 0o600 });
      return { file: new CheckpointFile(dataDir, fresh), keyCreated: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return { file: new CheckpointFile(dataDir, (await readFile(keyPath, 'utf8')).trim()), keyCreated: false };
    }
  }

  async read(): Promise<CheckpointRead> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
      throw err;
    }
    let stored: Record<string, unknown>;
    try {
      stored = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { state: 'invalid', reason: 'the checkpoint file is not readable JSON', claimed: {} };
    }
    const { seq, hash, ts, mac } = stored ?? {};
    if (!Number.isInteger(seq) || typeof hash !== 'string' || typeof ts !== 'string' || typeof mac !== 'string') {
      return { state: 'invalid', reason: 'the checkpoint file lacks its fields', claimed: {} };
    }
    const checkpoint = { seq: seq as number, hash, ts };
    const expected = Buffer.from(this.sign(checkpoint));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { state: 'invalid', reason: 'the checkpoint signature does not match: the file was changed or forged', claimed: checkpoint };
    }
    return { state: 'valid', checkpoint };
  }

  save(checkpoint: Checkpoint): Promise<void> {
    this.latest = checkpoint;
    if (!this.queued) {
      this.queued = this.inFlight.catch(() => undefined).then(() => {
        this.queued = undefined;
        return this.write(this.latest!);
      });
      this.inFlight = this.queued;
    }
    return this.queued;
  }

  /** Resolves once every save made so far is on disk (or has failed). */
  async idle(): Promise<void> {
    await (this.queued ?? this.inFlight).catch(() => undefined);
  }

  private sign(checkpoint: Checkpoint): string {
    return createHmac('sha256', this.key).update(`${checkpoint.seq}\n${checkpoint.hash}\n${checkpoint.ts}`).digest('hex');
  }

  /** Atomic: a crash leaves the old file or the new one, never half of one. */
  private async write(checkpoint: Checkpoint): Promise<void> {
    const temp = `${this.path}.tmp`;
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify({ ...checkpoint, mac: this.sign(checkpoint) })}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, this.path);
  }
}
