// A tenant's memory settings: when an observation graduates into a memory, and how many memories a
// new session's system prompt carries. Stored per tenant; defaults below until a tenant sets its own.
import type { ExtensionContext } from '../_shared/extension.js';

export interface MemorySettings {
  /** An observation graduates once its score reaches this… */
  observationScoreThreshold: number;
  /** …and it has been reinforced (boosted or recorded again) at least this many times. */
  observationAccessThreshold: number;
  /** Memories added to a new session's system prompt (0: none). */
  contextMemories: number;
}

export const DEFAULT_SETTINGS: MemorySettings = {
  observationScoreThreshold: 3,
  observationAccessThreshold: 2,
  contextMemories: 5,
};

export async function readSettings(ctx: ExtensionContext, tenantId: string): Promise<MemorySettings> {
  const row = await ctx.sql.get<{ settings: string }>('SELECT settings FROM memory_settings WHERE tenant_id = ?', [tenantId]);
  return { ...DEFAULT_SETTINGS, ...(row ? (JSON.parse(row.settings) as Partial<MemorySettings>) : {}) };
}

export async function writeSettings(ctx: ExtensionContext, tenantId: string, change: Partial<MemorySettings>): Promise<MemorySettings> {
  const settings = { ...(await readSettings(ctx, tenantId)), ...change };
  await ctx.db('memory_settings')
    .insert({ tenant_id: tenantId, settings: JSON.stringify(settings), updated_at: new Date().toISOString() })
    .onConflict('tenant_id')
    .merge();
  return settings;
}
