// The loop limits and the reply timeout, per tenant. The defaults are the contract's: at most 5 messages
// and 2 recipients a session, 3 s apart, and chains of agent→agent messages at most 3 deep. A sender with
// no session (an agent named over REST or the WebSocket, a person, a script) is held to the same numbers
// within a rolling window of windowSeconds (limits.ts).
import type { Knex } from 'knex';

export interface MessagingSettings {
  maxMessagesPerSession: number;
  maxTargetsPerSession: number;
  minSpacingMs: number;
  maxDepth: number;
  replyTimeoutSeconds: number;
  windowSeconds: number;
}

export const DEFAULT_SETTINGS: MessagingSettings = {
  maxMessagesPerSession: 5,
  maxTargetsPerSession: 2,
  minSpacingMs: 3_000,
  maxDepth: 3,
  replyTimeoutSeconds: 120,
  windowSeconds: 60,
};

export class SettingsStore {
  constructor(private readonly db: Knex) {}

  async get(tenantId: string): Promise<MessagingSettings> {
    const row = await this.db('messaging_settings').where({ tenant_id: tenantId }).first<{ settings: string } | undefined>();
    return { ...DEFAULT_SETTINGS, ...(row ? (JSON.parse(row.settings) as Partial<MessagingSettings>) : {}) };
  }

  /** Merges the given fields into the tenant's settings and answers the result. */
  async update(tenantId: string, change: Partial<MessagingSettings>): Promise<MessagingSettings> {
    const next = { ...(await this.get(tenantId)), ...change };
    const row = { tenant_id: tenantId, settings: JSON.stringify(next), updated_at: new Date().toISOString() };
    await this.db('messaging_settings').insert(row).onConflict('tenant_id').merge();
    return next;
  }
}
