// MCP tools: svc_check_credits for every agent; svc_grant_credits and svc_credit_config only for
// agents granted them in mcp_tool_permissions (the kernel checks the grant before calling here).
import { RoostError } from '../../protocol/errors.js';
import type { ToolMessage, ToolReply } from '../../protocol/messages.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, ToolHandler } from '../../sdk/extension.js';
import { resolveWallet } from './agents-client.js';
import { announceBalance } from './announce.js';
import { ConfigStore, type CreditConfig } from './config.js';
import { Ledger } from './ledger.js';
import { requireMonthlyRoom } from './monthly.js';
import { Reservations } from './reservations.js';
import { schema } from './schemas.js';

const reply = (value: unknown): ToolReply => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
const actorOf = (caller: ToolMessage['caller']) => (caller.agentId ? `agent:${caller.agentId}` : 'mcp');

function walletOf(ctx: ExtensionContext, caller: ToolMessage['caller'], args: Record<string, unknown>) {
  return resolveWallet(ctx, { tenantId: caller.tenantId }, caller.tenantId, String(args.wallet_address));
}

const MICRO_UNITS_PER_CREDIT = 1_000_000;

/** The grant in microUnits: `credits` (the seed's unit, to the millionth) or `microUnits` as given. */
function grantedMicroUnits(args: Record<string, unknown>): number {
  if (typeof args.microUnits === 'number') return args.microUnits;
  const microUnits = Math.round((args.credits as number) * MICRO_UNITS_PER_CREDIT);
  if (microUnits < 1 || Math.abs(microUnits - (args.credits as number) * MICRO_UNITS_PER_CREDIT) > 1e-3) {
    throw new RoostError('VALIDATION_ERROR', 'arguments.credits must be a whole number of microUnits (at most six decimal places, at least 0.000001)');
  }
  return microUnits;
}

export const tools: Record<string, ToolHandler> = {
  async svc_check_credits(args, caller, ctx) {
    const wallet = await walletOf(ctx, caller, args);
    const reserved = await Reservations.heldTotal(ctx.db, caller.tenantId, wallet.address);
    return reply({ wallet: wallet.address, agentId: wallet.agentId, balance: wallet.balance, reserved, unit: 'microUnits' });
  },

  async svc_grant_credits(args, caller, ctx) {
    const wallet = await walletOf(ctx, caller, args);
    const microUnits = grantedMicroUnits(args);
    const reason = typeof args.reason === 'string' ? args.reason : 'granted by an agent';
    await requireMonthlyRoom(ctx.host, ctx.db, caller.tenantId, wallet, microUnits);
    const { balance, transaction } = await new Ledger(ctx.db, ctx.sql).credit(caller.tenantId, wallet.address, { kind: 'grant', microUnits, reason, reference: 'svc_grant_credits', actor: actorOf(caller) });
    announceBalance(ctx, { tenantId: caller.tenantId, agentId: wallet.agentId, wallet: wallet.address, balance });
    ctx.host.audit('credits.granted_by_agent', `wallet:${wallet.address}`, { agentId: caller.agentId, sessionId: caller.sessionId, microUnits });
    return reply({ wallet: wallet.address, granted: microUnits, grantedCredits: microUnits / MICRO_UNITS_PER_CREDIT, balance, unit: 'microUnits', transactionId: transaction.id });
  },

  async svc_credit_config(args, caller, ctx) {
    const store = new ConfigStore(ctx.db, ctx.sql);
    if (args.action === 'get') return reply(await store.get(caller.tenantId));
    if (args.config === undefined) throw new RoostError('VALIDATION_ERROR', 'action "set" needs a config object');
    const patch = validate<Partial<CreditConfig>>(schema(ctx, 'credit-config.json'), args.config, 'arguments.config');
    const config = await store.update(caller.tenantId, patch);
    ctx.host.audit('credits.config_updated', 'settings:credits', { agentId: caller.agentId, changed: Object.keys(patch) });
    return reply(config);
  },
};
