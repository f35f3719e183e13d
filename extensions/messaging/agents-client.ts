// The agents extension, reached through the kernel: looking agents up by id or name, and recording
// messages in its store (the one store of agent-to-agent messages).
import { RoostError, notFound } from '../../protocol/errors.js';
import type { CallAs, HostClient } from '../_shared/host-client.js';

export interface AgentRef {
  id: string;
  name: string;
}

export interface StoredMessage {
  id: string;
  from: string | null;
  to: string;
  content: string;
  sessionId: string | null;
  thread: string | null;
  txid: string | null;
  createdAt: string;
}

type Reply = { status: number; body: Record<string, any> | null };

/** An agent of the caller's tenant named by id or by its (tenant-unique) name; 404 otherwise. */
export async function resolveAgent(host: HostClient, as: CallAs, ref: string): Promise<AgentRef> {
  const byId = (await host.call('GET', `/api/agents/${encodeURIComponent(ref)}`, undefined, as)) as Reply;
  if (byId.status === 200 && byId.body) return { id: byId.body.id, name: byId.body.name };
  if (byId.status !== 404) throw passOn(byId, `looking up agent ${ref}`);
  unavailableUnlessServed(byId);
  const search = (await host.call('GET', `/api/agents?limit=200&search=${encodeURIComponent(ref)}`, undefined, as)) as Reply;
  if (search.status !== 200 || !search.body) throw passOn(search, `looking up agent ${ref}`);
  const match = (search.body.agents as AgentRef[]).find((a) => a.name === ref);
  if (!match) throw notFound(`agent ${ref}`);
  return { id: match.id, name: match.name };
}

export async function recordMessage(host: HostClient, as: CallAs, message: Omit<StoredMessage, 'id' | 'txid' | 'createdAt'>): Promise<StoredMessage> {
  const reply = (await host.call('POST', '/api/internal/agent-messages', message, as)) as Reply;
  if (reply.status !== 201 || !reply.body) throw passOn(reply, 'recording the message');
  return reply.body as StoredMessage;
}

function unavailableUnlessServed(reply: Reply): void {
  if (reply.body?.code === 'ROUTE_NOT_FOUND') throw new RoostError('EXTENSION_UNAVAILABLE', 'messages go between agents, and the agents extension is not loaded; load it and retry');
}

function passOn(reply: Reply, what: string): RoostError {
  unavailableUnlessServed(reply);
  const code = typeof reply.body?.code === 'string' ? reply.body.code : 'UPSTREAM_ERROR';
  const why = typeof reply.body?.error === 'string' ? reply.body.error : `status ${reply.status}`;
  return new RoostError(code, `${what} failed: ${why}`, { status: reply.status });
}
