// What every route of this extension shares: its schemas, its stores, the tenant-scoped agent lookup
// and the role rule.
import { join } from 'node:path';
import { notFound } from '../../protocol/errors.js';
import type { AuthContext } from '../../protocol/messages.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { BundleStore } from './bundles.js';
import { MessageStore } from './messages.js';
import { PersonaStore } from './personas.js';
import { AgentStore, type Agent } from './store.js';
import { requireRole } from '../../sdk/roles.js';
import { agentTopic } from './contract.js';
import type { PlanCache } from '../plans/contract.js';

/** What the extension keeps while it runs (main.ts): the plans its creates were checked against. */
export interface AgentsState {
  plans: PlanCache;
}

export const schema = (ctx: ExtensionContext, name: string): string => join(ctx.init.plugin.dir, 'schemas', name);

export const stores = (ctx: ExtensionContext) => ({
  agents: new AgentStore(ctx.db, ctx.sql),
  personas: new PersonaStore(ctx.db),
  bundles: new BundleStore(ctx.db, ctx.sql),
  messages: new MessageStore(ctx.db, ctx.sql),
});

export async function mustGetAgent(ctx: ExtensionContext, tenantId: string, id: string): Promise<Agent> {
  const agent = await new AgentStore(ctx.db, ctx.sql).get(tenantId, id);
  if (!agent) throw notFound(`agent ${id}`);
  return agent;
}

export function requireOwner(auth: AuthContext, what: string): void {
  requireRole(auth, 'owner', what);
}

/** Tells subscribers of agent.{id} (WebSocket clients, the credits extension) that an agent changed. */
export function announce(ctx: ExtensionContext, tenantId: string, action: 'created' | 'updated' | 'deleted', agent: Agent): void {
  ctx.host.emit(agentTopic(agent.id), { type: 'agent_updated', agentId: agent.id, action, agent }, tenantId);
}
