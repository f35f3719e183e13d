// Memory settings: when an observation graduates into a memory, and how many memories a new session's
// system prompt carries. A tenant sets its own (else the defaults below); an agent may override how
// many memories its sessions carry.
import type { ExtensionContext } from '../../sdk/extension.js';

export interface MemorySettings {
  /** An observation graduates once its score reaches this… */
  observationScoreThreshold: number;
  /** …and it has been reinforced (boosted or recorded again) at least this many times. */
  observationAccessThreshold: number;
  /** Memories added to a new session's system prompt (0: none). */
  contextMemories: number;
}

/** What an agent may set for itself; null falls back to its tenant's. */
export interface AgentMemorySettings {
  contextMemories: number | null;
}

export const DEFAULT_SETTINGS: MemorySettings = {
  observationScoreThreshold: 3,
  observationAccessThreshold: 2,
  contextMemories: 5,
};

const TENANT = '';

async function stored<T>(ctx: ExtensionContext, tenantId: string, agentId: string): Promise<Partial<T>> {
  const row = await ctx.sql.get<{ settings: string }>('SELECT settings FROM memory_settings WHERE tenant_id = ? AND agent_id = ?', [tenantId, agentId]);
  return row ? (JSON.parse(row.settings) as Partial<T>) : {};
}

async function store(ctx: ExtensionContext, tenantId: string, agentId: string, settings: object): Promise<void> {
  await ctx.db('memory_settings')
    .insert({ tenant_id: tenantId, agent_id: agentId, settings: JSON.stringify(settings), updated_at: new Date().toISOString() })
    .onConflict(['tenant_id', 'agent_id'])
    .merge();
}

export async function readSettings(ctx: ExtensionContext, tenantId: string): Promise<MemorySettings> {
  return { ...DEFAULT_SETTINGS, ...(await stored<MemorySettings>(ctx, tenantId, TENANT)) };
}

export async function writeSettings(ctx: ExtensionContext, tenantId: string, change: Partial<MemorySettings>): Promise<MemorySettings> {
  const settings = { ...(await readSettings(ctx, tenantId)), ...change };
  await store(ctx, tenantId, TENANT, settings);
  return settings;
}

export async function readAgentSettings(ctx: ExtensionContext, tenantId: string, agentId: string): Promise<AgentMemorySettings> {
  return { contextMemories: null, ...(await stored<AgentMemorySettings>(ctx, tenantId, agentId)) };
}

export async function writeAgentSettings(ctx: ExtensionContext, tenantId: string, agentId: string, settings: AgentMemorySettings): Promise<void> {
  await store(ctx, tenantId, agentId, settings);
}

/** How many memories a new session of the agent carries: its own setting, else its tenant's. */
export async function contextMemoriesOf(ctx: ExtensionContext, tenantId: string, agentId: string): Promise<number> {
  const own = (await readAgentSettings(ctx, tenantId, agentId)).contextMemories;
  return own ?? (await readSettings(ctx, tenantId)).contextMemories;
}
