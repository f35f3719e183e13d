// The append-only audit log. Each entry's hash covers its own fields and the previous entry's hash,
// so editing, deleting or reordering any row breaks the chain from that row on.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

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

export interface ChainReport {
  valid: boolean;
  checked: number;
  /** The first entry whose hash does not follow from the chain. */
  brokenAt?: number;
  reason?: string;
}

const GENESIS = '0'.repeat(64);

interface Row {
  seq: number;
  ts: string;
  tenant_id: string | null;
  actor: string;
  action: string;
  resource: string;
  detail: string;
  prev_hash: string;
  hash: string;
}

export class AuditLog {
  private tail: Promise<unknown> = Promise.resolve();
  private head: { seq: number; hash: string } | undefined;

  constructor(private readonly db: Knex) {}

  /** Appends one entry; appends are serialised so the chain has one line. */
  append(input: AuditInput): Promise<void> {
    const run = this.tail.then(() => this.write(input));
    this.tail = run.catch((err) => process.stderr.write(`audit: append failed: ${(err as Error).message}\n`));
    return run;
  }

  /** Resolves once every append made so far is written. */
  async flush(): Promise<void> {
    await this.tail;
  }

  async query(q: AuditQuery): Promise<{ entries: AuditEntry[]; total: number }> {
    const base = this.db<Row>('audit_log').where((w) => {
      if (q.tenantId !== undefined) w.where('tenant_id', q.tenantId);
      if (q.action) w.whereRaw("action LIKE ? ESCAPE '\\'", [startsWith(q.action)]);
      if (q.actor) w.where('actor', q.actor);
      if (q.resource) w.whereRaw("resource LIKE ? ESCAPE '\\'", [startsWith(q.resource)]);
      if (q.since) w.where('ts', '>=', q.since);
      if (q.until) w.where('ts', '<=', q.until);
    });
    const [{ n }] = await base.clone().count<{ n: number }[]>({ n: '*' });
    const rows = await base.clone().orderBy('seq', 'desc').limit(q.limit).offset(q.offset);
    return { entries: rows.map(toEntry), total: Number(n) };
  }

  async verify(): Promise<ChainReport> {
    let prev = GENESIS;
    let expectedSeq = 1;
    let checked = 0;
    const pageSize = 1000;
    for (let after = 0; ; ) {
      const rows = await this.db<Row>('audit_log').where('seq', '>', after).orderBy('seq').limit(pageSize);
      for (const row of rows) {
        if (row.seq !== expectedSeq) return { valid: false, checked, brokenAt: expectedSeq, reason: `entry ${expectedSeq} is missing` };
        if (row.prev_hash !== prev) return { valid: false, checked, brokenAt: row.seq, reason: 'previous hash does not match' };
        if (hashOf(row) !== row.hash) return { valid: false, checked, brokenAt: row.seq, reason: 'entry was altered' };
        prev = row.hash;
        expectedSeq++;
        checked++;
      }
      if (rows.length < pageSize) return { valid: true, checked };
      after = rows[rows.length - 1]!.seq;
    }
  }

  private async write(input: AuditInput): Promise<void> {
    if (!this.head) {
      const last = await this.db<Row>('audit_log').orderBy('seq', 'desc').first();
      this.head = last ? { seq: last.seq, hash: last.hash } : { seq: 0, hash: GENESIS };
    }
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
    await this.db('audit_log').insert({ ...row, hash });
    this.head = { seq: row.seq, hash };
  }
}

/** A LIKE pattern matching values that start with `prefix` taken literally (`_` and `%` included). */
function startsWith(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function hashOf(row: Omit<Row, 'hash'>): string {
  const fields = [row.seq, row.ts, row.tenant_id, row.actor, row.action, row.resource, row.detail];
  return createHash('sha256').update(`${row.prev_hash}\n${JSON.stringify(fields)}`).digest('hex');
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
