// The memory extension's contract with its callers (sessions put an agent's memories in its system
// prompt; chainchat sends memories on-chain and restores them; exams check that memory is served). It
// imports nothing of memory's own code; memory types its handlers with it.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';

export const MEMORY_ROUTES = {
  save: 'POST /api/mcp/save-memory',
  recall: 'POST /api/mcp/recall-memory',
  context: 'GET /api/internal/memory/agents/:id/context',
  setTxid: 'PUT /api/internal/memory/agents/:id/memories/:key/txid',
  unsent: 'GET /api/internal/memory/unsent',
} as const;

export interface SaveMemoryRequest {
  agentId: string;
  key: string;
  content: string;
}

/** By key, or the memories matching a query. */
export interface RecallMemoryRequest {
  agentId: string;
  key?: string;
  query?: string;
  limit?: number;
}

/** A memory of an agent as chainchat sends it on-chain. */
export interface PlainMemory {
  agentId: string;
  key: string;
  content: string;
}

type Reply<T> = Promise<{ status: number; body: T | null }>;
type Failure = { code?: string; error?: string };

export class MemoryClient {
  constructor(private readonly host: HostClient) {}

  save(memory: SaveMemoryRequest, as: CallAs): Reply<Failure> {
    return callRoute(this.host, MEMORY_ROUTES.save, { body: memory }, as);
  }

  recall(request: RecallMemoryRequest, as: CallAs): Reply<{ memory?: { key: string; content: string } } & Failure> {
    return callRoute(this.host, MEMORY_ROUTES.recall, { body: request }, as);
  }

  /** Whether a memory extension is loaded: the recall route asked with nothing (a 400 says it is served). */
  async served(as: CallAs): Promise<boolean> {
    const reply = await callRoute<Failure | null>(this.host, MEMORY_ROUTES.recall, { body: {} }, as);
    return !(reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND');
  }

  /** The text a runner's system prompt carries: the agent's memories most relevant to `query`. */
  context(agentId: string, query: string | undefined, as: CallAs): Reply<{ text?: unknown } & Failure> {
    return callRoute(this.host, MEMORY_ROUTES.context, { params: { id: agentId }, query: { query } }, as);
  }

  setTxid(agentId: string, key: string, txid: string, as: CallAs): Reply<Failure> {
    return callRoute(this.host, MEMORY_ROUTES.setTxid, { params: { id: agentId, key }, body: { txid } }, as);
  }

  unsent(limit: number, as: CallAs): Reply<{ memories?: PlainMemory[] } & Failure> {
    return callRoute(this.host, MEMORY_ROUTES.unsent, { query: { limit } }, as);
  }
}
