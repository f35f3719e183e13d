// A signed copy of the audit chain's head, kept outside the audit table: `<data>/audit-head.json`
// holds {seq, hash, ts} and an HMAC-SHA256 under the secret in `<data>/audit.key` (0600, created on
// the first start). The chain alone cannot show that its newest entries were deleted, or that the
// whole chain was recomputed after an edit; the checkpoint can, unless the same hand also holds the key.
// It also carries the count of appends that failed and are not yet recorded in the chain (see log.ts),
// so a loss survives a restart even while the disk is too full for the chain to take its record.
// Saves are coalesced: at most one write is under way and one waits, and the waiting one writes the
// newest head when it starts, so every save resolves once a head at least as new is on disk. Writes
// start at least spacingMs (100 ms) apart: under load the file follows the chain ten times a second
// instead of after every batch of appends (each write is an fsync and a rename); idle() (the audit
// log's flush) and a head carrying lost appends start a waiting write at once. Before each write the
// chain's own commits are made durable (the kernel's SQLite database may sync only at its checkpoints).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isDiskFull } from '../../protocol/errors.js';

export interface Checkpoint {
  seq: number;
  hash: string;
  ts: string;
  /** Appends that failed since `since` and are not yet recorded in the chain; absent when there are none. */
  unrecorded?: Unrecorded;
}

export interface Unrecorded {
  count: number;
  since: string;
}

/**
 * Every write has this size (JSON padded with spaces), so when the disk is too full for a new file the
 * checkpoint can be overwritten in place, in the blocks it already holds.
 */
const FILE_BYTES = 512;

/** The least time from the start of one write to the start of the next. */
const SPACING_MS = 100;

export type CheckpointRead =
  | { state: 'valid'; checkpoint: Checkpoint }
  | { state: 'missing' }
  | { state: 'invalid'; reason: string; claimed: Partial<Checkpoint> };

export class CheckpointFile {
  private readonly path: string;
  private latest: Checkpoint | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private lastWriteAt = 0;
  /** idle() wants the queued write on disk now: it skips (or ends) its spacing wait. */
  private urgent = false;
  private hurry: (() => void) | undefined;

  private constructor(
    dataDir: string,
    private readonly key: string,
    private readonly spacingMs: number,
    private readonly chainDurable: () => Promise<void>,
  ) {
    this.path = join(dataDir, 'audit-head.json');
  }

  /**
   * Opens the checkpoint of a data dir; `keyCreated` says this start made the key (so no checkpoint could
   * exist yet). `chainDurable` makes the chain's commits so far durable: each write waits for it, so no
   * power cut leaves the checkpoint ahead of the chain it vouches for.
   */
  static async open(dataDir: string, options: { spacingMs?: number; chainDurable?: () => Promise<void> } = {}): Promise<{ file: CheckpointFile; keyCreated: boolean }> {
    const { spacingMs = SPACING_MS, chainDurable = async () => undefined } = options;
    const keyPath = join(dataDir, 'audit.key');
    const fresh = randomBytes(32).toString('hex');
    try {
      await writeFile(keyPath, fresh, { flag: 'wx', mode: 0o600 });
      return { file: new CheckpointFile(dataDir, fresh, spacingMs, chainDurable), keyCreated: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return { file: new CheckpointFile(dataDir, (await readFile(keyPath, 'utf8')).trim(), spacingMs, chainDurable), keyCreated: false };
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
    const unrecorded = readUnrecorded(stored.unrecorded);
    if (unrecorded === null) return { state: 'invalid', reason: 'the checkpoint file lacks its fields', claimed: {} };
    const checkpoint: Checkpoint = { seq: seq as number, hash, ts, ...(unrecorded ? { unrecorded } : {}) };
    const expected = Buffer.from(this.sign(checkpoint));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { state: 'invalid', reason: 'the checkpoint signature does not match: the file was changed or forged', claimed: checkpoint };
    }
    return { state: 'valid', checkpoint };
  }

  save(checkpoint: Checkpoint): Promise<void> {
    this.latest = checkpoint;
    // A count of lost appends goes to disk as soon as it can: it is all that will tell of them.
    if (checkpoint.unrecorded) this.hurryUp();
    if (!this.queued) {
      this.queued = this.inFlight.catch(() => undefined).then(() => this.spaced()).then(() => {
        this.queued = undefined;
        this.lastWriteAt = Date.now();
        return this.write(this.latest!);
      });
      this.inFlight = this.queued;
    }
    return this.queued;
  }

  /** Resolves once every save made so far is on disk (or has failed). */
  async idle(): Promise<void> {
    this.hurryUp();
    await (this.queued ?? this.inFlight).catch(() => undefined);
  }

  private hurryUp(): void {
    this.urgent = true;
    this.hurry?.();
  }

  private spaced(): Promise<void> {
    const wait = this.lastWriteAt + this.spacingMs - Date.now();
    if (this.urgent || wait <= 0) {
      this.urgent = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const go = () => {
        clearTimeout(timer);
        this.hurry = undefined;
        this.urgent = false;
        resolve();
      };
      const timer = setTimeout(go, wait);
      this.hurry = go;
    });
  }

  private sign(checkpoint: Checkpoint): string {
    const { unrecorded } = checkpoint;
    const lost = unrecorded ? `\n${unrecorded.count}\n${unrecorded.since}` : '';
    return createHmac('sha256', this.key).update(`${checkpoint.seq}\n${checkpoint.hash}\n${checkpoint.ts}${lost}`).digest('hex');
  }

  /**
   * Atomic: a crash leaves the old file or the new one, never half of one. With the disk full, the one
   * sector-sized write in place is the best that can be had, and better than losing the count of lost appends.
   */
  private async write(checkpoint: Checkpoint): Promise<void> {
    const text = JSON.stringify({ ...checkpoint, mac: this.sign(checkpoint) });
    const bytes = Buffer.from(`${text.padEnd(FILE_BYTES - 1)}\n`);
    const temp = `${this.path}.tmp`;
    await this.chainDurable();
    try {
      await writeSynced(temp, 'w', bytes);
      await rename(temp, this.path);
    } catch (err) {
      if (!isDiskFull(err)) throw err;
      await rm(temp, { force: true });
      await writeSynced(this.path, 'r+', bytes);
    }
  }
}

async function writeSynced(path: string, flags: 'w' | 'r+', bytes: Buffer): Promise<void> {
  const handle = await open(path, flags, 0o600);
  try {
    await handle.write(bytes, 0, bytes.length, 0);
    if (flags === 'r+') await handle.truncate(bytes.length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The stored `unrecorded` field: undefined when absent, null when malformed. */
function readUnrecorded(value: unknown): Unrecorded | undefined | null {
  if (value === undefined) return undefined;
  const { count, since } = (value ?? {}) as Record<string, unknown>;
  return Number.isInteger(count) && (count as number) > 0 && typeof since === 'string' ? { count: count as number, since } : null;
}
