// Bus events from the agents extension (agent.* topics, type agent_updated): a new agent gets its
// wallet (with the initial grant) at once, written with the other creations of the moment
// (wallet-openings.ts); a rename follows, a deletion marks the wallet. The ledger itself is kept: it is
// the history of what was granted and spent.
import type { EventHandler } from '../../sdk/extension.js';
import { Ledger } from './ledger.js';
import type { CreditsState } from './state.js';

interface AgentUpdated {
  type: 'agent_updated';
  action: 'created' | 'updated' | 'deleted';
  agent: { id: string; name: string; wallet: string };
}

function isAgentUpdated(payload: unknown): payload is AgentUpdated {
  const p = payload as Partial<AgentUpdated> | null;
  return !!p && p.type === 'agent_updated' && typeof p.agent?.id === 'string' && typeof p.agent.wallet === 'string' && typeof p.agent.name === 'string';
}

export const onAgentEvent: EventHandler<CreditsState> = async (event, ctx, state) => {
  if (!event.tenantId || !isAgentUpdated(event.payload)) return;
  const { action, agent } = event.payload;
  try {
    if (action === 'created') await state.walletOpenings.open(event.tenantId, agent);
    else if (action === 'updated') await new Ledger(ctx.db, ctx.sql).rename(event.tenantId, agent.id, agent.name);
    else if (action === 'deleted') await new Ledger(ctx.db, ctx.sql).markAgentDeleted(event.tenantId, agent.id);
  } catch (err) {
    ctx.host.log('warn', `agent event ${action} for ${agent.id}: ${(err as Error).message}`);
  }
};
