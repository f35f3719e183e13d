// Recording messages in the agents extension's store (the one store of agent-to-agent messages).
import type { CallAs, HostClient } from '../_shared/host-client.js';
import { upstreamError, type RouteAnswer } from '../_shared/agent-lookup.js';

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

export async function recordMessage(host: HostClient, as: CallAs, message: Omit<StoredMessage, 'id' | 'txid' | 'createdAt'>): Promise<StoredMessage> {
  const reply = (await host.call('POST', '/api/internal/agent-messages', message, as)) as RouteAnswer;
  if (reply.status !== 201 || !reply.body) throw upstreamError(reply, 'recording the message');
  return reply.body as StoredMessage;
}
