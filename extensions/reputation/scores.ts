// Stored scores: computed from the events, kept until stale — an event was recorded since, or the score
// is older than the stale age (decay moves it even without events) — then recomputed on the next read.
// A recomputed score is announced as reputation.score (the marketplace ranks the agent's listings by it).
import type { ExtensionContext } from '../../sdk/extension.js';
import { integerSetting, numberSetting } from '../../sdk/settings.js';
import { EventStore } from './events-store.js';
import { scoreOf, type Components } from './scoring.js';

export interface Score {
  agentId: string;
  score: number;
  eventCount: number;
  components: Components;
  computedAt: string;
}

type Row = Record<string, any>;

export const halfLifeDays = (ctx: ExtensionContext): number => numberSetting(ctx, 'HALF_LIFE_DAYS', 30, 0.01, 3650);
const staleSeconds = (ctx: ExtensionContext): number => integerSetting(ctx, 'STALE_SECONDS', 3600, 1, 30 * 86_400);

export async function computeScore(ctx: ExtensionContext, tenantId: string, agentId: string, now = new Date()): Promise<Score> {
  const events = await new EventStore(ctx.db, ctx.sql).all(tenantId, agentId);
  const { score, components } = scoreOf(events, now, halfLifeDays(ctx));
  const row = { tenant_id: tenantId, agent_id: agentId, score, components: JSON.stringify(components), event_count: events.length, computed_at: now.toISOString(), stale: false };
  await ctx.db('reputation_scores').insert(row).onConflict(['tenant_id', 'agent_id']).merge(['score', 'components', 'event_count', 'computed_at', 'stale']);
  ctx.host.emit('reputation.score', { agentId, score }, tenantId);
  return toScore(row);
}

/** The stored score, recomputed first when stale or missing. */
export async function currentScore(ctx: ExtensionContext, tenantId: string, agentId: string, now = new Date()): Promise<Score> {
  const row = await ctx.sql.get<Row>('SELECT * FROM reputation_scores WHERE tenant_id = ? AND agent_id = ?', [tenantId, agentId]);
  if (row && !isStale(ctx, row, now)) return toScore(row);
  return computeScore(ctx, tenantId, agentId, now);
}

/** Every agent with a history in the tenant; `force` recomputes all, else only the stale ones. */
export async function allScores(ctx: ExtensionContext, tenantId: string, force: boolean): Promise<Score[]> {
  const now = new Date();
  const agents = await new EventStore(ctx.db, ctx.sql).agents(tenantId);
  const scores: Score[] = [];
  for (const agentId of agents) scores.push(force ? await computeScore(ctx, tenantId, agentId, now) : await currentScore(ctx, tenantId, agentId, now));
  return scores;
}

function isStale(ctx: ExtensionContext, row: Row, now: Date): boolean {
  return row.stale === true || row.stale === 1 || now.getTime() - Date.parse(row.computed_at) > staleSeconds(ctx) * 1000;
}

function toScore(row: Row): Score {
  return { agentId: row.agent_id, score: Number(row.score), eventCount: Number(row.event_count), components: JSON.parse(row.components) as Components, computedAt: row.computed_at };
}
