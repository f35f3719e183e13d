// API keys: random bearer secrets shown once, stored only as SHA-256 hashes, with an expiry. A rotated
// key keeps working for a grace period. Lookups are cached briefly and dropped on every change.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { notFound } from '../../protocol/errors.js';

export type Role = 'owner' | 'operator' | 'viewer';
export const DEFAULT_TENANT = 'default';

export interface KeyRecord {
  keyHash: string;
  tenantId: string;
  role: Role;
  label: string;
  createdAt: string;
  expiresAt: string | null;
  /** The one resource this key is for (an OAuth access token's audience), or null: every API. */
  audience: string | null;
}

/** What a key minted through the `keys` capability carries beyond tenant and role. */
export interface MintedBy {
  extension: string;
  audience: string | null;
}

interface Row {
  key_hash: string;
  tenant_id: string;
  role: Role;
  label: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  audience?: string | null;
  minted_by?: string | null;
}

const CACHE_MS = 5_000;

export function generateKey(): string {
  return `rk_${randomBytes(32).toString('base64url')}`;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export type KeyLookup = { ok: true; record: KeyRecord } | { ok: false; reason: 'unknown' | 'expired' };

export class KeyStore {
  private readonly cache = new Map<string, { at: number; row: Row | undefined }>();

  constructor(private readonly db: Knex, private readonly ttlDays: number) {}

  async lookup(key: string): Promise<KeyLookup> {
    const hash = hashKey(key);
    const row = await this.row(hash);
    // The index found the row by hash; compare again in constant time so timing says nothing more.
    if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex')) || row.revoked_at) {
      return { ok: false, reason: 'unknown' };
    }
    if (row.expires_at && Date.parse(row.expires_at) <= Date.now()) return { ok: false, reason: 'expired' };
    return { ok: true, record: toRecord(row) };
  }

  async create(tenantId: string, role: Role, label: string, expiresAt = this.defaultExpiry(), minted?: MintedBy): Promise<{ key: string; record: KeyRecord }> {
    const key = generateKey();
    const row: Row = {
      ...(minted ? { audience: minted.audience, minted_by: minted.extension } : {}),
      key_hash: hashKey(key),
      tenant_id: tenantId,
      role,
      label,
      created_at: new Date().toISOString(),
      expires_at: expiresAt,
      revoked_at: null,
    };
    await this.db('api_keys').insert(row);
    return { key, record: toRecord(row) };
  }

  /** Makes sure a key given in configuration (ROOST_API_KEY) exists as an owner key of the tenant. */
  async adopt(key: string, tenantId: string, label: string): Promise<void> {
    const hash = hashKey(key);
    if (await this.db('api_keys').where({ key_hash: hash }).first()) return;
    await this.db('api_keys').insert({ key_hash: hash, tenant_id: tenantId, role: 'owner', label, created_at: new Date().toISOString(), expires_at: null, revoked_at: null });
  }

  /** Issues a new key with the same tenant and role; the old one expires after the grace period. */
  async rotate(keyHash: string, graceSeconds: number): Promise<{ key: string; record: KeyRecord; previousExpiresAt: string }> {
    const old = await this.row(keyHash);
    if (!old) throw notFound('API key');
    const fresh = await this.create(old.tenant_id, old.role, old.label);
    const graceEnd = new Date(Date.now() + graceSeconds * 1000).toISOString();
    const previousExpiresAt = old.expires_at && old.expires_at < graceEnd ? old.expires_at : graceEnd;
    await this.db('api_keys').where({ key_hash: keyHash }).update({ expires_at: previousExpiresAt });
    this.cache.delete(keyHash);
    return { ...fresh, previousExpiresAt };
  }

  async list(tenantId: string): Promise<KeyRecord[]> {
    const rows = await this.db<Row>('api_keys').where({ tenant_id: tenantId }).whereNull('revoked_at').orderBy('created_at');
    return rows.map(toRecord);
  }

  /** Keys of the tenant that still work (not revoked, not expired): its members, for the plan's limit. */
  async countValid(tenantId: string): Promise<number> {
    const now = new Date().toISOString();
    // A key for one resource (an OAuth access token) is a member's sign-in to it, not a member more.
    const row = await this.db('api_keys').where({ tenant_id: tenantId }).whereNull('revoked_at').whereNull('audience')
      .andWhere((q) => void q.whereNull('expires_at').orWhere('expires_at', '>', now)).count<{ n: number | string }[]>({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  async get(keyHash: string): Promise<KeyRecord | undefined> {
    const row = await this.row(keyHash);
    return row && !row.revoked_at ? toRecord(row) : undefined;
  }

  async revoke(tenantId: string, keyHash: string): Promise<boolean> {
    const n = await this.db('api_keys').where({ tenant_id: tenantId, key_hash: keyHash }).whereNull('revoked_at').update({ revoked_at: new Date().toISOString() });
    this.cache.delete(keyHash);
    return n > 0;
  }

  /** Revokes a key only if `extension` minted it (the `keys` capability's revocation). */
  async revokeMinted(extension: string, keyHash: string): Promise<boolean> {
    const n = await this.db('api_keys').where({ minted_by: extension, key_hash: keyHash }).whereNull('revoked_at').update({ revoked_at: new Date().toISOString() });
    this.cache.delete(keyHash);
    return n > 0;
  }

  private defaultExpiry(): string | null {
    return this.ttlDays > 0 ? new Date(Date.now() + this.ttlDays * 86_400_000).toISOString() : null;
  }

  private async row(hash: string): Promise<Row | undefined> {
    const hit = this.cache.get(hash);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.row;
    const row = await this.db<Row>('api_keys').where({ key_hash: hash }).first();
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, { at: Date.now(), row });
    return row;
  }
}

function toRecord(row: Row): KeyRecord {
  return { keyHash: row.key_hash, tenantId: row.tenant_id, role: row.role, label: row.label, createdAt: row.created_at, expiresAt: row.expires_at, audience: row.audience ?? null };
}
