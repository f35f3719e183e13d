// Bus events the marketplace hears: reputation.score (an agent's new reputation score, from the
// reputation extension), so search ranks the agent's listings by it.
import type { EventHandler } from '../../sdk/extension.js';
import { ListingStore } from './listings.js';

export const onEvent: EventHandler = async ({ topic, payload, tenantId }, ctx) => {
  const p = payload as { agentId?: unknown; score?: unknown } | null;
  if (topic !== 'reputation.score' || !tenantId || typeof p?.agentId !== 'string' || typeof p.score !== 'number') return;
  await new ListingStore(ctx.db, ctx.sql).setAgentReputation(tenantId, p.agentId, Math.min(100, Math.max(0, p.score)));
};
