// The credits extension knows agents only through the agents extension's routes: an agent's wallet
// address comes from GET /api/agents/:id (as the caller, so tenants stay apart), and a wallet seen
// for the first time is opened here with the tenant's initial grant.
import { notFound, RoostError } from '../../protocol/errors.js';
import type { CallAs } from '../../sdk/host-client.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { callRoute } from '../../sdk/route-call.js';
import { announceBalance } from './announce.js';
import { ConfigStore } from './config.js';
import { Ledger, type Wallet } from './ledger.js';
import { AGENTS_ROUTES } from '../agents/contract.js';

export interface AgentRef {
  id: string;
  name: string;
  wallet: string;
  provider: string | null;
  model: string | null;
}

export async function resolveAgent(ctx: ExtensionContext, as: CallAs, tenantId: string, agentId: string): Promise<{ agent: AgentRef; wallet: Wallet }> {
  const reply = await callRoute<Record<string, unknown>>(ctx.host, AGENTS_ROUTES.get, { params: { id: agentId } }, as);
  if (reply.status === 404 && reply.body?.code !== 'ROUTE_NOT_FOUND') throw notFound(`agent ${agentId}`);
  const agent = agentFrom(reply);
  return { agent, wallet: await openWallet(ctx, tenantId, agent) };
}

/** A wallet of the tenant by address: known already, or the wallet of one of the tenant's agents. */
export async function resolveWallet(ctx: ExtensionContext, as: CallAs, tenantId: string, address: string): Promise<Wallet> {
  const known = await new Ledger(ctx.db, ctx.sql).wallet(tenantId, address);
  if (known) return known;
  if (!/^rw_[0-9a-f]{40}$/.test(address)) throw notFound(`wallet ${address}`);
  const reply = await callRoute<{ agents?: unknown[] }>(ctx.host, AGENTS_ROUTES.list, { query: { wallet: address, limit: 1 } }, as);
  const first = reply.status === 200 ? reply.body?.agents?.[0] : undefined;
  if (reply.status === 200 && !first) throw notFound(`wallet ${address}`);
  return openWallet(ctx, tenantId, agentFrom({ status: reply.status, body: (first ?? reply.body) as Record<string, unknown> }));
}

export async function openWallet(ctx: ExtensionContext, tenantId: string, agent: { id: string; name: string; wallet: string }): Promise<Wallet> {
  const initialGrant = async () => (await new ConfigStore(ctx.db, ctx.sql).get(tenantId)).initialGrant;
  const { wallet, change } = await new Ledger(ctx.db, ctx.sql).ensure(tenantId, agent, initialGrant);
  if (change) announceBalance(ctx, change);
  return wallet;
}

function agentFrom(reply: { status: number; body: Record<string, unknown> | null }): AgentRef {
  if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', 'credits need the agents extension to find wallets, and it is not loaded');
  }
  if (reply.status >= 500) throw new RoostError('EXTENSION_UNAVAILABLE', `the agents extension could not answer (status ${reply.status}); retry shortly`);
  const body = reply.body ?? {};
  if (reply.status !== 200 || typeof body.id !== 'string' || typeof body.wallet !== 'string') {
    throw new RoostError('UPSTREAM_ERROR', `the agents extension answered ${reply.status} when asked for an agent`);
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return { id: body.id, name: str(body.name) ?? '', wallet: body.wallet, provider: str(body.provider), model: str(body.model) };
}
