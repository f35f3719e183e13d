// Mention-polling configurations and what their polls saw.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

export interface PollRow {
  id: string;
  tenant_id: string;
  repo: string;
  interval_seconds: number;
  active: boolean | number;
  etag: string | null;
  since: string | null;
  next_poll_at: number | string;
  last_polled_at: string | null;
  last_status: number | null;
  last_error: string | null;
  polls: number;
  not_modified: number;
  created_at: string;
  updated_at: string;
}

export const toPoll = (r: PollRow) => ({
  id: r.id, repo: r.repo, intervalSeconds: r.interval_seconds, active: Boolean(r.active), lastPolledAt: r.last_polled_at, lastStatus: r.last_status,
  lastError: r.last_error, polls: r.polls, notModified: r.not_modified, createdAt: r.created_at, updatedAt: r.updated_at,
});

export type PollInput = { repo: string; intervalSeconds?: number; active?: boolean };

export class PollStore {
  constructor(private readonly db: Knex) {}

  list(tenantId: string): Promise<PollRow[]> {
    return this.db<PollRow>('mention_polls').where({ tenant_id: tenantId }).orderBy('created_at');
  }

  get(tenantId: string, id: string): Promise<PollRow | undefined> {
    return this.db<PollRow>('mention_polls').where({ tenant_id: tenantId, id }).first();
  }

  async create(tenantId: string, input: PollInput): Promise<PollRow | undefined> {
    const now = new Date().toISOString();
    const id = randomUUID();
    const exists = await this.db('mention_polls').where({ tenant_id: tenantId, repo: input.repo }).first();
    if (exists) return undefined;
    await this.db('mention_polls').insert({
      id, tenant_id: tenantId, repo: input.repo, interval_seconds: input.intervalSeconds ?? 60, active: input.active ?? true, next_poll_at: Date.now(), created_at: now, updated_at: now,
    });
    return this.get(tenantId, id);
  }

  async update(tenantId: string, id: string, input: Partial<PollInput>): Promise<PollRow | undefined> {
    const patch: Record<string, unknown> = { updated_at: new Date().toISOString() };
    if (input.intervalSeconds !== undefined) patch.interval_seconds = input.intervalSeconds;
    if (input.active !== undefined) (patch.active = input.active), (patch.next_poll_at = Date.now());
    const n = await this.db('mention_polls').where({ tenant_id: tenantId, id }).update(patch);
    return n > 0 ? this.get(tenantId, id) : undefined;
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('mention_polls').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  due(now: number): Promise<PollRow[]> {
    return this.db<PollRow>('mention_polls').where({ active: true }).andWhere('next_poll_at', '<=', now).orderBy('next_poll_at').limit(50);
  }

  async anyActive(): Promise<boolean> {
    return (await this.db('mention_polls').where({ active: true }).first()) !== undefined;
  }

  async polled(id: string, patch: Partial<PollRow>, notModified: boolean): Promise<void> {
    const now = new Date().toISOString();
    await this.db('mention_polls').where({ id }).update({
      ...patch, last_polled_at: now, updated_at: now, polls: this.db.raw('polls + 1'), not_modified: this.db.raw(notModified ? 'not_modified + 1' : 'not_modified'),
    });
  }

  /** True when this comment is new to the config (and now taken); false when seen before. */
  async take(configId: string, comment: { id: string; sender: string; url: string }): Promise<boolean> {
    try {
      await this.db('mention_seen').insert({ config_id: configId, comment_id: comment.id, sender: comment.sender, url: comment.url, outcome: 'pending', seen_at: new Date().toISOString() });
      return true;
    } catch {
      return false;
    }
  }

  async settle(configId: string, commentId: string, outcome: { action: string; reason?: string; sessionId?: string }): Promise<void> {
    await this.db('mention_seen').where({ config_id: configId, comment_id: commentId }).update({ outcome: outcome.action, reason: outcome.reason ?? null, session_id: outcome.sessionId ?? null });
  }

  async activity(configId: string, limit: number) {
    const rows = await this.db('mention_seen').where({ config_id: configId }).orderBy('seen_at', 'desc').limit(limit);
    return rows.map((r) => ({ commentId: r.comment_id, sender: r.sender, url: r.url, outcome: r.outcome, reason: r.reason, sessionId: r.session_id, seenAt: r.seen_at }));
  }

  async stats(tenantId: string) {
    const configs = await this.list(tenantId);
    const ids = configs.map((c) => c.id);
    const seen = (ids.length ? await this.db('mention_seen').whereIn('config_id', ids).select('outcome').count({ n: '*' }).groupBy('outcome') : []) as Array<{ outcome: string; n: number | string }>;
    const count = (outcome: string) => Number(seen.find((s) => s.outcome === outcome)?.n ?? 0);
    return {
      configs: configs.length, active: configs.filter((c) => Boolean(c.active)).length,
      polls: configs.reduce((n, c) => n + Number(c.polls), 0), notModified: configs.reduce((n, c) => n + Number(c.not_modified), 0),
      commentsSeen: seen.reduce((n, s) => n + Number(s.n), 0), sessionsStarted: count('session_started'),
      lastPollAt: configs.map((c) => c.last_polled_at).filter(Boolean).sort().at(-1) ?? null,
    };
  }
}
