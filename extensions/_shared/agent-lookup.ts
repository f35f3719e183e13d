// Finding an agent of the caller's tenant by id or by its (tenant-unique) name, through the agents
// extension's routes: messages, A2A tasks and anything else that lets people and agents name agents.
import { RoostError, notFound } from '../../protocol/errors.js';
import type { CallAs, HostClient } from './host-client.js';

export interface AgentRef {
  id: string;
  name: string;
}

export type RouteAnswer = { status: number; body: Record<string, any> | null };

export async function resolveAgent(host: HostClient, as: CallAs, ref: string): Promise<AgentRef> {
  const byId = (await host.call('GET', `/api/agents/${encodeURIComponent(ref)}`, undefined, as)) as RouteAnswer;
  if (byId.status === 200 && byId.body) return { id: byId.body.id, name: byId.body.name };
  if (byId.status !== 404 || byId.body?.code === 'ROUTE_NOT_FOUND') throw upstreamError(byId, `looking up agent ${ref}`);
  const search = (await host.call('GET', `/api/agents?limit=200&search=${encodeURIComponent(ref)}`, undefined, as)) as RouteAnswer;
  if (search.status !== 200 || !search.body) throw upstreamError(search, `looking up agent ${ref}`);
  const match = (search.body.agents as AgentRef[]).find((a) => a.name === ref);
  if (!match) throw notFound(`agent ${ref}`);
  return { id: match.id, name: match.name };
}

/** An agent of the caller's tenant by id only (another tenant's answers NOT_FOUND, as an unknown one). */
export async function agentById(host: HostClient, as: CallAs, id: string): Promise<AgentRef> {
  const reply = (await host.call('GET', `/api/agents/${encodeURIComponent(id)}`, undefined, as)) as RouteAnswer;
  if (reply.status === 200 && reply.body) return { id: reply.body.id, name: reply.body.name };
  if (reply.status === 404 && reply.body?.code !== 'ROUTE_NOT_FOUND') throw notFound(`agent ${id}`);
  throw upstreamError(reply, `looking up agent ${id}`);
}

/** Another extension's refusal passed on with its status and code; an unserved route says which extension to load. */
export function upstreamError(reply: RouteAnswer, what: string): RoostError {
  if (reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND') {
    return new RoostError('EXTENSION_UNAVAILABLE', `${what} needs the agents extension, which is not loaded; load it and retry`);
  }
  const code = typeof reply.body?.code === 'string' ? reply.body.code : 'UPSTREAM_ERROR';
  const why = typeof reply.body?.error === 'string' ? reply.body.error : `status ${reply.status}`;
  return new RoostError(code, `${what} failed: ${why}`, { status: reply.status });
}
