// Every balance change is announced on the agent's stream: {type: "agent_balance", agentId, wallet,
// balance}, delivered to WebSocket clients of the same tenant subscribed with {agentId}.
import type { ExtensionContext } from '../../sdk/extension.js';
import type { BalanceChange } from './ledger.js';
import { agentTopic } from '../agents/contract.js';

export function announceBalance(ctx: ExtensionContext, change: BalanceChange): void {
  ctx.host.emit(agentTopic(change.agentId), { type: 'agent_balance', agentId: change.agentId, wallet: change.wallet, balance: change.balance }, change.tenantId);
}
