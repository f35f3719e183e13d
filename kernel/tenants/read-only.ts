// A tenant that may read but not change anything, from a moment on (`at`), for a reason the extension
// that set it gives (the kernel shows it, never interprets it). Set by an extension granted `tenants`;
// while it holds, the HTTP front refuses mutations except on routes declared writable_when_read_only,
// and the WebSocket front refuses commands. Read on every mutating request, so rows are cached briefly;
// instances sharing PostgreSQL see a change within CACHE_MS.
import type { Knex } from 'knex';
import { notFound, RoostError, validationError } from '../../protocol/errors.js';

export interface ReadOnlyState {
  /** From this moment on the tenant may only read; null: writable. */
  at: string | null;
  /** Why, in words for the tenant's people (shown with the refusal). */
  reason: string | null;
  /** True when `at` has come. */
  readOnly: boolean;
}

interface Row {
  read_only_at: string | null;
  read_only_reason: string | null;
}

const CACHE_MS = 5_000;
const MAX_REASON = 500;

export class TenantReadOnly {
  private readonly cache = new Map<string, { at: number; row: Row | undefined }>();

  constructor(private readonly db: Knex) {}

  async get(tenantId: string): Promise<ReadOnlyState | undefined> {
    const row = await this.row(tenantId);
    return row && toState(row);
  }

  async set(tenantId: string, change: { at: string | null; reason?: string | null }): Promise<ReadOnlyState> {
    if (change.at !== null && (typeof change.at !== 'string' || Number.isNaN(Date.parse(change.at)))) throw validationError('at must be an ISO 8601 timestamp or null');
    const reason = change.at === null ? null : (change.reason ?? null);
    if (reason !== null && (typeof reason !== 'string' || reason.length > MAX_REASON)) throw validationError(`reason must be a string of at most ${MAX_REASON} characters`);
    const n = await this.db('tenants').where({ id: tenantId }).update({ read_only_at: change.at, read_only_reason: reason });
    if (n === 0) throw notFound(`tenant ${tenantId}`);
    this.cache.delete(tenantId);
    return toState({ read_only_at: change.at, read_only_reason: reason });
  }

  /** Throws 403 TENANT_READ_ONLY while the tenant reads only. */
  async requireWritable(tenantId: string): Promise<void> {
    const state = await this.get(tenantId);
    if (state?.readOnly) {
      throw new RoostError('TENANT_READ_ONLY', `this tenant can read but not change anything since ${state.at}${state.reason ? `: ${state.reason}` : ''}`);
    }
  }

  private async row(tenantId: string): Promise<Row | undefined> {
    const hit = this.cache.get(tenantId);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.row;
    const row = await this.db<Row & { id: string }>('tenants').select('read_only_at', 'read_only_reason').where({ id: tenantId }).first();
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(tenantId, { at: Date.now(), row });
    return row;
  }
}

function toState(row: Row): ReadOnlyState {
  const at = row.read_only_at ?? null;
  return { at, reason: at === null ? null : (row.read_only_reason ?? null), readOnly: at !== null && Date.parse(at) <= Date.now() };
}
