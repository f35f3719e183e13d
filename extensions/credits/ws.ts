// WebSocket client messages: agent_reward {agentId, microUnits} credits an agent's wallet (operator or
// owner). The sender gets `agent_rewarded`; subscribers of the agent get `agent_balance`.
import { validate } from '../../protocol/validate.js';
import type { WsHandler } from '../../sdk/extension.js';
import { resolveAgent } from './agents-client.js';
import { announceBalance } from './announce.js';
import { Ledger } from './ledger.js';
import { requireRole } from '../../sdk/roles.js';
import { schema } from './schemas.js';

export const ws: Record<string, WsHandler> = {
  async agent_reward(message, client, ctx) {
    requireRole(client.auth, 'operator', 'rewarding an agent');
    const m = validate<{ agentId: string; microUnits: number; reason?: string }>(schema(ctx, 'ws-agent-reward.json'), message, 'message');
    const tenantId = client.auth.tenantId;
    const { agent, wallet } = await resolveAgent(ctx, { tenantId }, tenantId, m.agentId);
    const { balance, transaction } = await new Ledger(ctx.db, ctx.sql).credit(tenantId, wallet.address, { kind: 'reward', microUnits: m.microUnits, reason: m.reason ?? 'reward', reference: 'agent_reward', actor: client.auth.actor });
    announceBalance(ctx, { tenantId, agentId: agent.id, wallet: wallet.address, balance });
    ctx.host.wsSend(client.id, { type: 'agent_rewarded', agentId: agent.id, wallet: wallet.address, microUnits: m.microUnits, balance, transactionId: transaction.id });
  },
};
