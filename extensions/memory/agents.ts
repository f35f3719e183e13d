// Agents are the agents extension's: one is checked to exist in the caller's tenant through its route,
// so another tenant's agent gets the same 404 as an unknown one.
import { notFound, RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { CallAs } from '../../sdk/host-client.js';
import { agentsClient } from '../agents/contract.js';

export async function mustFindAgent(ctx: ExtensionContext, as: CallAs, agentId: string): Promise<void> {
  const reply = await agentsClient(ctx.host, as).get(agentId);
  if (reply.status === 200) return;
  if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') {
    throw new RoostError('EXTENSION_UNAVAILABLE', 'memory needs the agents extension to find agents, and it is not loaded');
  }
  if (reply.status === 404 || reply.status === 403) throw notFound(`agent ${agentId}`);
  throw new RoostError('EXTENSION_UNAVAILABLE', `the agents extension could not answer (status ${reply.status}); retry shortly`);
}
