// The tenant's repository blocklist (repositories agents must never touch) and code-host user
// allowlist (who may trigger agents from the code host).
import type { Knex } from 'knex';
import { validationError } from '../../protocol/errors.js';

export const REPO = /^[A-Za-z0-9_.-]+\/(?:[A-Za-z0-9_.-]+|\*)$/;

export function normaliseRepo(repo: string): string {
  const trimmed = repo.trim().toLowerCase();
  if (!REPO.test(trimmed) || trimmed.length > 200) throw validationError(`repo must be "owner/name" (or "owner/*"), got ${JSON.stringify(repo)}`);
  return trimmed;
}

export interface BlockEntry {
  repo: string;
  reason: string;
  createdAt: string;
}

export interface AllowEntry {
  username: string;
  label: string;
  agentId: string | null;
  createdAt: string;
  updatedAt: string;
}

export class Lists {
  constructor(private readonly db: Knex) {}

  async blocklist(tenantId: string): Promise<BlockEntry[]> {
    const rows = await this.db('repo_blocklist').where({ tenant_id: tenantId }).orderBy('repo');
    return rows.map((r) => ({ repo: r.repo, reason: r.reason, createdAt: r.created_at }));
  }

  /** The entry blocking `repo` (exact, or its owner's "owner/*"), if any. */
  async blockedBy(tenantId: string, repo: string): Promise<string | undefined> {
    const exact = normaliseRepo(repo);
    const row = await this.db('repo_blocklist').where({ tenant_id: tenantId }).whereIn('repo', [exact, `${exact.split('/')[0]}/*`]).first();
    return row?.repo;
  }

  async block(tenantId: string, repo: string, reason: string): Promise<{ entry: BlockEntry; created: boolean }> {
    const entry = { repo: normaliseRepo(repo), reason, createdAt: new Date().toISOString() };
    const existing = await this.db('repo_blocklist').where({ tenant_id: tenantId, repo: entry.repo }).first();
    if (existing) return { entry: { repo: existing.repo, reason: existing.reason, createdAt: existing.created_at }, created: false };
    await this.db('repo_blocklist').insert({ tenant_id: tenantId, repo: entry.repo, reason, created_at: entry.createdAt });
    return { entry, created: true };
  }

  async unblock(tenantId: string, repo: string): Promise<boolean> {
    return (await this.db('repo_blocklist').where({ tenant_id: tenantId, repo: normaliseRepo(repo) }).delete()) > 0;
  }

  async allowlist(tenantId: string): Promise<AllowEntry[]> {
    const rows = await this.db('vcshost_allowlist').where({ tenant_id: tenantId }).orderBy('username');
    return rows.map(toAllow);
  }

  async allowed(tenantId: string, username: string): Promise<AllowEntry | undefined> {
    const row = await this.db('vcshost_allowlist').where({ tenant_id: tenantId, username: username.toLowerCase() }).first();
    return row && toAllow(row);
  }

  async allow(tenantId: string, input: { username: string; label?: string; agentId?: string | null }): Promise<AllowEntry | undefined> {
    const now = new Date().toISOString();
    const username = input.username.toLowerCase();
    if (await this.allowed(tenantId, username)) return undefined;
    await this.db('vcshost_allowlist').insert({ tenant_id: tenantId, username, label: input.label ?? '', agent_id: input.agentId ?? null, created_at: now, updated_at: now });
    return this.allowed(tenantId, username);
  }

  async updateAllowed(tenantId: string, username: string, patch: { label?: string; agentId?: string | null }): Promise<AllowEntry | undefined> {
    const changes: Record<string, unknown> = { updated_at: new Date().toISOString() };
    if (patch.label !== undefined) changes.label = patch.label;
    if (patch.agentId !== undefined) changes.agent_id = patch.agentId;
    const n = await this.db('vcshost_allowlist').where({ tenant_id: tenantId, username: username.toLowerCase() }).update(changes);
    return n > 0 ? this.allowed(tenantId, username) : undefined;
  }

  async disallow(tenantId: string, username: string): Promise<boolean> {
    return (await this.db('vcshost_allowlist').where({ tenant_id: tenantId, username: username.toLowerCase() }).delete()) > 0;
  }
}

function toAllow(r: Record<string, string | null>): AllowEntry {
  return { username: r.username!, label: r.label ?? '', agentId: r.agent_id ?? null, createdAt: r.created_at!, updatedAt: r.updated_at! };
}
