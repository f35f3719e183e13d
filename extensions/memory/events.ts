// A deleted agent's private notes go with it: on the agents extension's agent_updated event with
// action "deleted", its memories, observations and settings are erased. Library notes it wrote stay:
// they belong to the tenant.
import type { EventHandler } from '../../sdk/extension.js';

function deletedAgentId(payload: unknown): string | undefined {
  const p = payload as { type?: unknown; action?: unknown; agent?: { id?: unknown } } | null;
  return p?.type === 'agent_updated' && p.action === 'deleted' && typeof p.agent?.id === 'string' ? p.agent.id : undefined;
}

export const onAgentEvent: EventHandler = async (event, ctx) => {
  const agentId = deletedAgentId(event.payload);
  if (!event.tenantId || !agentId) return;
  const tenantId = event.tenantId;
  await ctx.db.transaction(async (trx) => {
    await trx('memories').where({ tenant_id: tenantId, owner_id: agentId }).delete();
    await trx('observations').where({ tenant_id: tenantId, agent_id: agentId }).delete();
    await trx('memory_settings').where({ tenant_id: tenantId, agent_id: agentId }).delete();
  });
};
