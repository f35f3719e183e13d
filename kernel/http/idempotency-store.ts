// Where Idempotency-Key answers are kept: the kernel table idempotency_keys, one row per (tenant, key),
// shared by every instance on one database. A row is claimed by the request that runs (its `owner`,
// with a lease), then holds that request's answer until it expires. Every change is a conditional
// write on the row as it was read, so two instances racing for one key never both run it.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type Claim =
  | { kind: 'run'; owner: string }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'mismatch' }
  | { kind: 'busy' };

interface Row {
  tenant_id: string;
  key: string;
  fingerprint: string;
  owner: string;
  status: number | null;
  headers: string | null;
  body: string | null;
  lease_until: number | string;
  expires_at: number | string;
}

const TABLE = 'idempotency_keys';
/** Expired rows are deleted at most this often (by whichever request with a key comes along). */
const PURGE_EVERY_MS = 10 * 60_000;
/** A claim lost to a racing instance is tried again this many times before answering busy. */
const CLAIM_TRIES = 3;

export class IdempotencyStore {
  /** Owners claimed by this process start with it: on SQLite a claim of another boot is a dead one. */
  private readonly bootId = randomUUID();
  private lastPurge = 0;

  /** singleProcess: SQLite, where no other live process can hold a claim. */
  constructor(private readonly db: Knex, private readonly ttlMs: number, private readonly singleProcess: boolean) {}

  async claim(tenantId: string, key: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    this.purgeNowAndThen();
    const owner = `${this.bootId}:${randomUUID()}`;
    for (let attempt = 0; attempt < CLAIM_TRIES; attempt++) {
      const now = Date.now();
      const fresh = { fingerprint, owner, status: null, headers: null, body: null, lease_until: now + leaseMs, expires_at: now + this.ttlMs };
      await this.db(TABLE).insert({ tenant_id: tenantId, key, ...fresh }).onConflict(['tenant_id', 'key']).ignore();
      const row = await this.db(TABLE).where({ tenant_id: tenantId, key }).first<Row | undefined>();
      if (!row) continue; // purged between the two
      if (row.owner === owner) return { kind: 'run', owner };
      const same = { tenant_id: tenantId, key, owner: row.owner };
      if (Number(row.expires_at) <= now) {
        // Kept for its day and gone: the key is free again.
        if ((await this.db(TABLE).where(same).update(fresh)) === 1) return { kind: 'run', owner };
        continue;
      }
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.status !== null) {
        return { kind: 'replay', response: { status: Number(row.status), headers: JSON.parse(row.headers ?? '{}') as Record<string, string>, body: Buffer.from(row.body ?? '', 'base64') } };
      }
      // In flight elsewhere, unless whoever claimed it died: its lease ran out, or (SQLite) it was an earlier boot.
      const dead = Number(row.lease_until) <= now || (this.singleProcess && !row.owner.startsWith(`${this.bootId}:`));
      if (!dead) return { kind: 'busy' };
      if ((await this.db(TABLE).where(same).whereNull('status').update({ owner, lease_until: now + leaseMs })) === 1) return { kind: 'run', owner };
    }
    return { kind: 'busy' };
  }

  /** Keeps the answer of the request that claimed the key (unless the claim was lost meanwhile). */
  async keep(tenantId: string, key: string, owner: string, response: StoredResponse): Promise<void> {
    await this.db(TABLE).where({ tenant_id: tenantId, key, owner }).update({
      status: response.status,
      headers: JSON.stringify(response.headers),
      body: response.body.toString('base64'),
    });
  }

  /** Frees the key: the request's answer is not kept, so a retry runs it again. */
  async release(tenantId: string, key: string, owner: string): Promise<void> {
    await this.db(TABLE).where({ tenant_id: tenantId, key, owner }).whereNull('status').delete();
  }

  private purgeNowAndThen(): void {
    const now = Date.now();
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    this.db(TABLE).where('expires_at', '<=', now).delete().catch(() => undefined);
  }
}
