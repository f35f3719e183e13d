// The append-only audit log: a hash chain in the kernel database (chain.ts) whose head is also kept,
// signed, outside it (checkpoint.ts), and a verifier that reports every break (verify.ts).
import type { Knex } from 'knex';
import { advisoryKey } from '../../protocol/storage.js';
import { CHECKPOINT_MISMATCH, GENESIS, hashOf, type Row } from './chain.js';
import { CheckpointFile } from './checkpoint.js';
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

export class AuditLog {
  private tail: Promise<unknown> = Promise.resolve();
  private head = { seq: 0, hash: GENESIS };
  private readonly opened: Promise<CheckpointFile>;

  constructor(
    private readonly db: Knex,
    dataDir: string,
    private readonly log: Log = createLog('text'),
  ) {
    this.opened = this.open(dataDir);
    // A failure here surfaces (and is logged) on every append; this only keeps the rejection handled.
    this.opened.catch(() => undefined);
  }

  /**
   * Appends one entry. Appends are serialised so the chain has one line; the promise resolves once
   * the entry is stored and a checkpoint covering it is on disk.
   */
  append(input: AuditInput): Promise<void> {
    const inserted = this.tail.then(async () => {
      const checkpoints = await this.opened;
      return { checkpoints, head: await this.insert(input) };
    });
    this.tail = inserted.catch(() => undefined);
    const acknowledged = inserted.then(({ checkpoints, head }) => checkpoints.save({ ...head, ts: new Date().toISOString() }));
    acknowledged.catch((err: Error) => this.log('error', `audit: append failed: ${err.message}`));
    return acknowledged;
  }

  /** Resolves once every append made so far is stored and checkpointed. */
  async flush(): Promise<void> {
    await this.tail;
    await (await this.opened.catch(() => undefined))?.idle();
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
    await this.flush();
    return verifyChain(this.db, await this.opened);
  }

  /**
   * The head is the later of the table's newest row and the checkpoint, so sequence numbers are never
   * reused after the newest rows were deleted. A disagreement is written into the chain itself (a
   * CHECKPOINT_MISMATCH entry), because the next append moves the checkpoint on.
   */
  private async open(dataDir: string): Promise<CheckpointFile> {
    const { file, keyCreated } = await CheckpointFile.open(dataDir);
    const last = await this.db<Row>('audit_log').orderBy('seq', 'desc').first();
    const lastSeq = last?.seq ?? 0;
    if (last) this.head = { seq: last.seq, hash: last.hash };
    const found = await file.read();
    let problem: ChainBreak | undefined;
    if (found.state === 'valid') {
      const { seq, hash } = found.checkpoint;
      if (seq > lastSeq) this.head = { seq, hash };
      const atCheckpoint = await this.db<Row>('audit_log').where('seq', seq).first();
      problem = checkpointProblem(found, lastSeq, atCheckpoint?.hash);
    } else if (found.state === 'invalid' || !keyCreated) {
      // With a key just created there could be no checkpoint yet: this is the first start that keeps one.
      problem = checkpointProblem(found, lastSeq, undefined);
    }
    if (problem) {
      const claimed = found.state === 'valid' ? found.checkpoint : found.state === 'invalid' ? found.claimed : null;
      await this.insert({ tenantId: null, actor: 'kernel', action: CHECKPOINT_MISMATCH, resource: 'audit-log', detail: { reason: problem.reason, checkpoint: claimed } });
    }
    await file.save({ ...this.head, ts: new Date().toISOString() });
    return file;
  }

  private async insert(input: AuditInput): Promise<{ seq: number; hash: string }> {
    if (this.db.client.config.client !== 'pg') return this.insertAfter(this.db, input);
    // Several instances append to one chain: each links to the newest row under a lock all of them take.
    return this.db.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(?, ?)', advisoryKey('roost:audit'));
      const last = await trx<Row>('audit_log').orderBy('seq', 'desc').first();
      if (last && last.seq > this.head.seq) this.head = { seq: last.seq, hash: last.hash };
      return this.insertAfter(trx, input);
    });
  }

  private async insertAfter(db: Knex, input: AuditInput): Promise<{ seq: number; hash: string }> {
    const row: Omit<Row, 'hash'> = {
      seq: this.head.seq + 1,
      ts: new Date().toISOString(),
      tenant_id: input.tenantId,
      actor: input.actor,
      action: input.action,
      resource: input.resource,
      detail: JSON.stringify(input.detail ?? null),
      prev_hash: this.head.hash,
    };
    const hash = hashOf(row);
    await db('audit_log').insert({ ...row, hash });
    this.head = { seq: row.seq, hash };
    return this.head;
  }
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
