// An agent of the caller's tenant by id, through the agents extension (another tenant's is unknown).
import { notFound } from '../../protocol/errors.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { upstreamError, type RouteAnswer } from '../_shared/agent-lookup.js';
import type { CallAs } from '../_shared/host-client.js';

export async function agentOf(ctx: ExtensionContext, as: CallAs, agentId: string): Promise<{ id: string; name: string }> {
  const reply = (await ctx.host.call('GET', `/api/agents/${encodeURIComponent(agentId)}`, null, as)) as RouteAnswer;
  if (reply.status === 200 && reply.body) return { id: String(reply.body.id), name: String(reply.body.name ?? '') };
  if (reply.status === 404 && reply.body?.code !== 'ROUTE_NOT_FOUND') throw notFound(`agent ${agentId}`);
  throw upstreamError(reply, `looking up agent ${agentId}`);
}
