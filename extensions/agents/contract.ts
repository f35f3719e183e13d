// The agents extension's contract: what other extensions may rely on. Its routes' paths (built here and
// nowhere else), the records they answer, the bus topic it emits, the A2A binding its cards advertise,
// and a thin typed client over the host client, with the lookups by id or name every caller needs.
// Callers import this module instead of writing an agents URL; it imports nothing of the extension's
// internals (the extension types its handlers with it).
import { notFound } from '../../protocol/errors.js';
import { upstreamError, type CallAs, type HostClient, type RouteAnswer } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';

/** The routes others may call, each named as plugin.toml declares it (sdk/route-call.ts fills in a path). */
export const AGENTS_ROUTES = {
  list: 'GET /api/agents',
  create: 'POST /api/agents',
  get: 'GET /api/agents/:id',
  remove: 'DELETE /api/agents/:id',
  card: 'GET /api/agents/:id/agent-card',
  messages: 'GET /api/agents/:id/messages',
  skillBundle: 'GET /api/skill-bundles/:id',
  /** Internal: the agent composed for a run (record, persona and skills folded into one system prompt). */
  runtime: 'GET /api/internal/agents/:id/runtime',
  /** Internal: records an agent-to-agent message (the one store of them). */
  recordMessage: 'POST /api/internal/agent-messages',
  /** Internal: a message's on-chain transaction, or why it has none yet (PUT {txid, txidReason}). */
  messageTxid: 'PUT /api/internal/agent-messages/:id/txid',
} as const;

/** The query of GET /api/agents. */
export interface AgentListQuery {
  limit?: number;
  offset?: number;
  total?: boolean;
  search?: string;
  wallet?: string;
}

/** Bus topic of one agent: `{type: 'agent_updated', agentId, action, agent}` and `{type: 'agent_message', agentId, message}`. */
export const AGENT_TOPIC_PREFIX = 'agent.';
export const agentTopic = (agentId: string) => `${AGENT_TOPIC_PREFIX}${agentId}`;

/**
 * The A2A binding an agent's card advertises. The agents extension defines it; the extension that speaks
 * A2A serves `POST` at `path` (the a2a extension), and a card names the endpoint only while a loaded
 * extension declares that route (the card route asks the kernel's route table, never that extension).
 */
export const A2A_BINDING = {
  protocolVersion: '0.3.0',
  transport: 'JSONRPC',
  path: '/a2a/agents/:id',
  /** What the a2a extension offers on it: streams (SSE) and push notifications to a webhook. */
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
} as const;

/**
 * The interfaces an A2A 1.0 card lists (`supportedInterfaces`) for an endpoint of the a2a extension at
 * `url`: JSON-RPC in 1.0 (preferred) and 0.3 at `url` itself (the method names tell them apart), and
 * 1.0's HTTP+JSON binding under `url`/v1.
 */
export const a2aInterfaces = (url: string) => [
  { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  { url: `${url}/v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
];

/** An agent as its routes answer it. */
export interface AgentRecord {
  id: string;
  name: string;
  description: string;
  model: string;
  provider: string;
  systemPrompt: string;
  permissionMode: string;
  wallet: string;
  tenant: string;
  mcp_tool_permissions: string[];
  createdAt: string;
  updatedAt: string;
}

/** An agent-to-agent message as stored (GET /api/agents/:id/messages, POST /api/internal/agent-messages). */
export interface AgentMessage {
  id: string;
  /** The sending agent, or null when a person or script sent it. */
  from: string | null;
  to: string;
  content: string;
  /** The recipient's session that took the message (or, for a reply, that answered it). */
  sessionId: string | null;
  /** The conversation the message belongs to (the messaging extension's thread id). */
  thread: string | null;
  /** The on-chain transaction that carries the message (chainchat sends it when set up for the tenant). */
  txid: string | null;
  /** Why `txid` is null (chainchat not set up or not loaded, queued, a chain failure being retried); null once it is set. */
  txidReason: string | null;
  createdAt: string;
}

export type NewAgentMessage = Omit<AgentMessage, 'id' | 'txid' | 'txidReason' | 'createdAt'>;

/** A message's txid once sent on-chain, or (txid null) why it is not; a null txid never replaces one set. */
export interface AgentMessageTxid {
  txid: string | null;
  txidReason: string | null;
  /**
   * The first answer about the message (the messaging extension's, once it has asked chainchat): kept only
   * while the message still says nobody was asked, so it never replaces what chainchat recorded meanwhile
   * (a retry's reason, the txid).
   */
  first?: boolean;
}

/** What a session needs to run an agent (GET /api/internal/agents/:id/runtime). */
export interface AgentRuntimeView {
  agent: AgentRecord;
  systemPrompt: string;
  /** Union of the tools of its bundles: the agent's, then the project's (`projectBundles`) it lacks. */
  tools: string[];
}

type Refusal = { error?: string; code?: string };

/** The agents routes, called as `as` (the request being served or a tenant). Answers are passed on as they come. */
export function agentsClient(host: HostClient, as: CallAs) {
  const call = <T>(route: (typeof AGENTS_ROUTES)[keyof typeof AGENTS_ROUTES], request: Parameters<typeof callRoute>[2]) => callRoute<(T & Refusal) | null>(host, route, request, as);
  return {
    list: (query: AgentListQuery = {}) => call<{ agents: AgentRecord[]; total?: number; hasMore: boolean }>(AGENTS_ROUTES.list, { query: { ...query } }),
    get: (id: string) => call<AgentRecord>(AGENTS_ROUTES.get, { params: { id } }),
    /** The agent composed for a run; `projectBundles`: the skill bundles of the session's project, after its own. */
    runtime: (id: string, projectBundles: string[] = []) => call<AgentRuntimeView>(AGENTS_ROUTES.runtime, { params: { id }, query: { projectBundles: projectBundles.length > 0 ? projectBundles.join(',') : undefined } }),
    recordMessage: (message: NewAgentMessage) => call<AgentMessage>(AGENTS_ROUTES.recordMessage, { body: message }),
    setMessageTxid: (id: string, change: AgentMessageTxid) => call<AgentMessage>(AGENTS_ROUTES.messageTxid, { params: { id }, body: change }),
  };
}

/** Records a delivered message (or a reply) in the agents extension's store; a refusal throws. */
export async function recordAgentMessage(host: HostClient, as: CallAs, message: NewAgentMessage): Promise<AgentMessage> {
  const reply = await agentsClient(host, as).recordMessage(message);
  if (reply.status !== 201 || !reply.body) throw agentsError(reply, 'recording the message');
  return reply.body;
}

/** A refusal of the agents extension passed on as an error naming `what` (and the extension when it is not loaded). */
export const agentsError = (reply: RouteAnswer<unknown>, what: string) => upstreamError(reply, what, 'agents');

export interface AgentRef {
  id: string;
  name: string;
}

/** An agent of the caller's tenant by id or by its (tenant-unique) name. */
export async function resolveAgent(host: HostClient, as: CallAs, ref: string): Promise<AgentRef> {
  const agents = agentsClient(host, as);
  const byId = await agents.get(ref);
  if (byId.status === 200 && byId.body) return { id: byId.body.id, name: byId.body.name };
  if (byId.status !== 404 || byId.body?.code === 'ROUTE_NOT_FOUND') throw agentsError(byId, `looking up agent ${ref}`);
  const search = await agents.list({ limit: 200, search: ref });
  if (search.status !== 200 || !search.body) throw agentsError(search, `looking up agent ${ref}`);
  const match = search.body.agents.find((a) => a.name === ref);
  if (!match) throw notFound(`agent ${ref}`);
  return { id: match.id, name: match.name };
}

/** An agent of the caller's tenant by id only (another tenant's answers NOT_FOUND, as an unknown one). */
export async function agentById(host: HostClient, as: CallAs, id: string): Promise<AgentRef> {
  const reply = await agentsClient(host, as).get(id);
  if (reply.status === 200 && reply.body) return { id: reply.body.id, name: reply.body.name };
  if (reply.status === 404 && reply.body?.code !== 'ROUTE_NOT_FOUND') throw notFound(`agent ${id}`);
  throw agentsError(reply, `looking up agent ${id}`);
}
