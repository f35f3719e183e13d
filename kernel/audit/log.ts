// The append-only audit log: a hash chain in the kernel database (chain.ts) whose head is also kept,
// signed, outside it (checkpoint.ts), and a verifier that reports every break (verify.ts).
// An append that fails (disk full, database gone) is never dropped silently: it is counted, the count
// goes into the signed checkpoint at once, and into the chain (an ENTRIES_LOST entry) before anything else
// is appended, so `verify` names the loss until the end of the log's life.
import type { Knex } from 'knex';
import { isDiskFull } from '../../protocol/errors.js';
import { advisoryKey, syncCommitted } from '../../lib/storage.js';
import { runForEach } from '../../lib/sqlite-client.js';
import { CHECKPOINT_MISMATCH, ENTRIES_LOST, GENESIS, hashOf, type Row } from './chain.js';
import { CheckpointFile, type Unrecorded } from './checkpoint.js';
import { checkpointProblem, verifyChain, type ChainBreak, type ChainReport } from './verify.js';
import { createLog, type Log } from '../log.js';

export interface AuditInput {
  tenantId: string | null;
  actor: string;
  action: string;
  resource: string;
  detail?: unknown;
}

export interface AuditEntry {
  seq: number;
  ts: string;
  tenantId: string | null;
  actor: string;
  action: string;
  resource: string;
  detail: unknown;
  hash: string;
}

export interface AuditQuery {
  tenantId?: string;
  action?: string;
  actor?: string;
  resource?: string;
  since?: string;
  until?: string;
  limit: number;
  offset: number;
}

export type LostEntries = Unrecorded & { reason: string };

interface Pending {
  inputs: AuditInput[];
  resolve(): void;
  reject(err: unknown): void;
}

/** Appends waiting while one batch is written go in together, in one transaction (on PostgreSQL one INSERT: 9 columns a row stay far below its parameter limit). */
const MAX_BATCH = 200;

/** SQLite's append, a statement prepared once (knex builds its INSERT anew each time). */
const INSERT_SQLITE = 'INSERT INTO audit_log (seq, ts, tenant_id, actor, action, resource, detail, prev_hash, hash) VALUES (@seq, @ts, @tenant_id, @actor, @action, @resource, @detail, @prev_hash, @hash)';

export class AuditLog {
  private head = { seq: 0, hash: GENESIS };
  private checkpoints: CheckpointFile | undefined;
  private opening: Promise<CheckpointFile> | undefined;
  private queue: Pending[] = [];
  private draining: Promise<void> | undefined;
  /** Appends that failed and are not yet recorded in the chain. */
  private lost: LostEntries | undefined;

  constructor(
    private readonly db: Knex,
    private readonly dataDir: string,
    private readonly log: Log = createLog('text'),
  ) {
    // A failure here is retried (and surfaces) with the next append; this only keeps the rejection handled.
    this.open().catch(() => undefined);
  }

  /**
   * Appends one entry; the promise resolves once the entry is stored (the appends of one turn of the
   * event loop, and those made while a statement runs, are stored together, in one transaction). A
   * failed append is logged, counted and rejects.
   */
  append(input: AuditInput): Promise<void> {
    const stored = this.enqueue([input]);
    stored.catch((err: Error) => this.log('error', `audit: append failed: ${err.message}`));
    return stored;
  }

  /**
   * Resolves at once while appends succeed. After one failed, resolves only once the record of the lost
   * entries is in the chain, and rejects while it cannot be written: a caller can refuse to act until
   * what it does can be audited again.
   */
  async writable(): Promise<void> {
    if (this.lost) await this.enqueue([]);
  }

  /** The appends that failed and are not yet recorded in the chain (undefined when there are none). */
  get unrecorded(): LostEntries | undefined {
    return this.lost;
  }

  /** Resolves once every append made so far is stored (or has failed) and checkpointed. */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
    await this.checkpoints?.idle();
  }

  async query(q: AuditQuery): Promise<{ entries: AuditEntry[]; total: number }> {
    // Prefixes match ignoring case on both databases, as SQLite's LIKE does.
    const like = this.db.client.config.client === 'pg' ? 'ILIKE' : 'LIKE';
    const base = this.db<Row>('audit_log').where((w) => {
      if (q.tenantId !== undefined) w.where('tenant_id', q.tenantId);
      if (q.action) w.whereRaw(`action ${like} ? ESCAPE '\\'`, [startsWith(q.action)]);
      if (q.actor) w.where('actor', q.actor);
      if (q.resource) w.whereRaw(`resource ${like} ? ESCAPE '\\'`, [startsWith(q.resource)]);
      if (q.since) w.where('ts', '>=', q.since);
      if (q.until) w.where('ts', '<=', q.until);
    });
    const [{ n }] = await base.clone().count<{ n: number }[]>({ n: '*' });
    const rows = await base.clone().orderBy('seq', 'desc').limit(q.limit).offset(q.offset);
    return { entries: rows.map(toEntry), total: Number(n) };
  }

  async verify(): Promise<ChainReport> {
    // A loss not yet in the chain is recorded now if it can be, else reported from memory.
    await this.writable().catch(() => undefined);
    await this.flush();
    return verifyChain(this.db, await this.open(), this.lost);
  }

  private enqueue(inputs: AuditInput[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ inputs, resolve, reject });
      // The first append of a turn waits for its end, so the requests read in one turn share a statement.
      this.draining ??= new Promise<void>((turn) => setImmediate(turn)).then(() => this.drain());
    });
  }

  /** Stores the queue batch by batch; the chain has one line because only this loop writes it. */
  private async drain(): Promise<void> {
    while (this.queue.length > 0) await this.store(this.queue.splice(0, MAX_BATCH));
    this.draining = undefined;
  }

  private async store(batch: Pending[]): Promise<void> {
    const inputs = batch.flatMap((p) => p.inputs);
    try {
      const checkpoints = await this.open();
      const lost = this.lost;
      const rows = lost ? [lostEntry(lost), ...inputs] : inputs;
      if (rows.length > 0) await this.insert(rows);
      this.lost = undefined;
      this.checkpoint(checkpoints);
      for (const p of batch) p.resolve();
    } catch (err) {
      if (inputs.length > 0) {
        this.lost = { count: (this.lost?.count ?? 0) + inputs.length, since: this.lost?.since ?? new Date().toISOString(), reason: isDiskFull(err) ? 'the disk was full' : 'the database did not take the write' };
        if (this.checkpoints) this.checkpoint(this.checkpoints);
      }
      for (const p of batch) p.reject(err);
    }
  }

  /** Saves the head (and any loss not yet in the chain) to the checkpoint, in the background. */
  private checkpoint(file: CheckpointFile): void {
    const unrecorded = this.lost ? { unrecorded: { count: this.lost.count, since: this.lost.since } } : {};
    file.save({ ...this.head, ts: new Date().toISOString(), ...unrecorded }).catch((err: Error) => this.log('error', `audit: checkpoint not saved: ${err.message}`));
  }

  /** Opens the checkpoint once; a failed opening (a full disk, a database not there yet) is tried again by the next append. */
  private open(): Promise<CheckpointFile> {
    if (this.checkpoints) return Promise.resolve(this.checkpoints);
    this.opening ??= this.load().then(
      (file) => (this.checkpoints = file),
      (err: unknown) => {
        this.opening = undefined;
        throw err;
      },
    );
    return this.opening;
  }

  /**
   * The head is the later of the table's newest row and the checkpoint, so sequence numbers are never
   * reused after the newest rows were deleted. A disagreement is written into the chain itself (a
   * CHECKPOINT_MISMATCH entry), because the next append moves the checkpoint on; a loss the checkpoint
   * counted before a restart is recorded by the next append.
   */
  private async load(): Promise<CheckpointFile> {
    const { file, keyCreated } = await CheckpointFile.open(this.dataDir, { chainDurable: () => syncCommitted(this.db) });
    const last = await this.db<Row>('audit_log').orderBy('seq', 'desc').first();
    const lastSeq = last?.seq ?? 0;
    if (last) this.head = { seq: last.seq, hash: last.hash };
    const found = await file.read();
    let problem: ChainBreak | undefined;
    if (found.state === 'valid') {
      const { seq, hash, unrecorded } = found.checkpoint;
      if (seq > lastSeq) this.head = { seq, hash };
      if (unrecorded && !this.lost) this.lost = { ...unrecorded, reason: 'counted by the checkpoint before a restart' };
      const atCheckpoint = await this.db<Row>('audit_log').where('seq', seq).first();
      problem = checkpointProblem(found, lastSeq, atCheckpoint?.hash);
    } else if (found.state === 'invalid' || !keyCreated) {
      // With a key just created there could be no checkpoint yet: this is the first start that keeps one.
      problem = checkpointProblem(found, lastSeq, undefined);
    }
    if (problem) {
      const claimed = found.state === 'valid' ? found.checkpoint : found.state === 'invalid' ? found.claimed : null;
      await this.insert([{ tenantId: null, actor: 'kernel', action: CHECKPOINT_MISMATCH, resource: 'audit-log', detail: { reason: problem.reason, checkpoint: claimed } }]);
    }
    const unrecorded = this.lost ? { unrecorded: { count: this.lost.count, since: this.lost.since } } : {};
    await file.save({ ...this.head, ts: new Date().toISOString(), ...unrecorded });
    return file;
  }

  /** Stores the entries, in order, in one transaction: all of them or (on failure) none. */
  private async insert(inputs: AuditInput[]): Promise<void> {
    if (this.db.client.config.client !== 'pg') {
      const { head, rows } = chained(this.head, inputs);
      await runForEach(this.db, INSERT_SQLITE, rows);
      this.head = head;
      return;
    }
    // Several instances append to one chain: each links to the newest row under a lock all of them take.
    this.head = await this.db.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', advisoryKey('roost:audit'));
      const last = await trx<Row>('audit_log').orderBy('seq', 'desc').first();
      const chain = chained(last && last.seq > this.head.seq ? { seq: last.seq, hash: last.hash } : this.head, inputs);
      await trx('audit_log').insert(chain.rows);
      return chain.head;
    });
  }
}

/** The rows of `inputs` linked after `head`, and the head they make. */
function chained(head: { seq: number; hash: string }, inputs: AuditInput[]): { head: { seq: number; hash: string }; rows: Row[] } {
  let { seq, hash } = head;
  const ts = new Date().toISOString();
  const rows: Row[] = inputs.map((input) => {
    const row: Omit<Row, 'hash'> = {
      seq: ++seq,
      ts,
      tenant_id: input.tenantId,
      actor: input.actor,
      action: input.action,
      resource: input.resource,
      detail: JSON.stringify(input.detail ?? null),
      prev_hash: hash,
    };
    hash = hashOf(row);
    return { ...row, hash };
  });
  return { head: { seq, hash }, rows };
}

function lostEntry(lost: LostEntries): AuditInput {
  return { tenantId: null, actor: 'kernel', action: ENTRIES_LOST, resource: 'audit-log', detail: { count: lost.count, since: lost.since, until: new Date().toISOString(), reason: lost.reason } };
}

/** A LIKE pattern matching values that start with `prefix` taken literally (`_` and `%` included). */
function startsWith(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function toEntry(row: Row): AuditEntry {
  return {
    seq: row.seq,
    ts: row.ts,
    tenantId: row.tenant_id,
    actor: row.actor,
    action: row.action,
    resource: row.resource,
    detail: JSON.parse(row.detail) as unknown,
    hash: row.hash,
  };
}
