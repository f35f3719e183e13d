// The A2A protocol's JSON-RPC 2.0 binding (https://a2a-protocol.org, version 0.3), where the cards point:
// POST /a2a (the agent named in metadata.agent, or the tenant's only one) and POST /a2a/agents/:id (that
// agent). Methods: message/send (a task; `contextId` continues a conversation, `configuration.blocking`
// waits for the answer), tasks/get, tasks/cancel. Every answer is HTTP 200 with a JSON-RPC response;
// what fails is a JSON-RPC error: -32700 parse error, -32600 invalid request, -32601 method not found,
// -32602 invalid params, -32603 internal error, and A2A's -32001 task not found, -32002 task not
// cancelable, -32003 push notifications not supported, -32004 unsupported operation, -32005 content
// type not supported.
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { scanJsonLimits, EDGE_JSON_LIMITS } from '../../protocol/json-limits.js';
import type { RouteReply } from '../../protocol/messages.js';
import { validate } from '../../protocol/validate.js';
import { resolveAgent } from '../agents/contract.js';
import type { ExtensionContext, RouteRequest } from '../_shared/extension.js';
import { ok } from '../_shared/http.js';
import { schema } from './context.js';
import { cancelTask, currentTask, startTask } from './run-tasks.js';
import { FINAL_STATES, TaskStore, toA2ATask, type TaskRow } from './tasks.js';

type Id = string | number | null;

const MAX_TEXT = 100_000;
/** How long a blocking message/send waits for the answer before answering the working task. */
const BLOCKING_WAIT_MS = 120_000;
/** A2A methods this server knows and does not offer. */
const UNSUPPORTED: Record<string, [number, string]> = {
  'message/stream': [-32004, 'streaming is not supported (the card says capabilities.streaming: false): use message/send, then tasks/get'],
  'tasks/resubscribe': [-32004, 'streaming is not supported (the card says capabilities.streaming: false): poll tasks/get'],
  'agent/getAuthenticatedExtendedCard': [-32004, 'there is no extended card: the public card says everything'],
};

class RpcError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

interface Endpoint {
  req: RouteRequest;
  ctx: ExtensionContext;
  /** The agent of /a2a/agents/:id (its id or name), or undefined for /a2a. */
  agent: string | undefined;
}

export async function serveJsonRpc(req: RouteRequest, ctx: ExtensionContext, agent?: string): Promise<RouteReply> {
  let id: Id = null;
  try {
    const call = parseCall(req.body);
    id = call.id;
    return ok({ jsonrpc: '2.0', id, result: await dispatch(call.method, call.params, { req, ctx, agent }) });
  } catch (err) {
    if (!(err instanceof RpcError) && toRoostError(err).code === 'INTERNAL') ctx.host.log('error', err instanceof Error ? (err.stack ?? err.message) : String(err));
    return ok({ jsonrpc: '2.0', id, error: toRpcError(err) });
  }
}

function parseCall(body: unknown): { id: Id; method: string; params: unknown } {
  const text = typeof body === 'string' ? body : '';
  const tooBig = scanJsonLimits(text, EDGE_JSON_LIMITS);
  if (tooBig) throw new RpcError(-32600, `Invalid Request: ${tooBig}`);
  let call: unknown;
  try {
    call = JSON.parse(text);
  } catch {
    throw new RpcError(-32700, 'Parse error: the body is not JSON');
  }
  if (Array.isArray(call)) throw new RpcError(-32600, 'Invalid Request: batches are not supported; send one request at a time');
  const c = call as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown } | null;
  if (!c || typeof c !== 'object') throw new RpcError(-32600, 'Invalid Request: the body must be a JSON-RPC request object');
  if (c.jsonrpc !== '2.0') throw new RpcError(-32600, 'Invalid Request: jsonrpc must be "2.0"');
  if (typeof c.id !== 'string' && typeof c.id !== 'number') throw new RpcError(-32600, 'Invalid Request: id must be a string or a number (every A2A request is answered)');
  if (typeof c.method !== 'string') throw new RpcError(-32600, 'Invalid Request: method must be a string');
  return { id: c.id, method: c.method, params: c.params ?? {} };
}

async function dispatch(method: string, params: unknown, endpoint: Endpoint): Promise<unknown> {
  if (method === 'message/send') return sendMessage(params, endpoint);
  if (method === 'tasks/get') {
    const p = validate<{ id: string; historyLength?: number }>(schema(endpoint.ctx, 'rpc-task-id.json'), params, 'params');
    const row = await current(endpoint, await mustGetTask(endpoint, p.id));
    return toA2ATask(row, p.historyLength);
  }
  if (method === 'tasks/cancel') {
    const p = validate<{ id: string }>(schema(endpoint.ctx, 'rpc-task-id.json'), params, 'params');
    const row = await mustGetTask(endpoint, p.id);
    if (FINAL_STATES.has(row.state)) throw new RpcError(-32002, `Task not cancelable: task ${row.id} is ${row.state}`);
    return toA2ATask(await cancelTask(endpoint.ctx, endpoint.req.auth.tenantId, { requestId: endpoint.req.id }, row));
  }
  if (method.startsWith('tasks/pushNotificationConfig/')) throw new RpcError(-32003, 'Push Notification is not supported (the card says capabilities.pushNotifications: false)');
  const unsupported = UNSUPPORTED[method];
  if (unsupported) throw new RpcError(...unsupported);
  throw new RpcError(-32601, `Method not found: ${method}`);
}

interface SendParams {
  message: { messageId: string; contextId?: string; taskId?: string; parts: Array<{ kind: string; text?: string }>; metadata?: { agent?: string } };
  configuration?: { blocking?: boolean; historyLength?: number };
  metadata?: { agent?: string };
}

async function sendMessage(params: unknown, endpoint: Endpoint): Promise<unknown> {
  const { ctx, req } = endpoint;
  const p = validate<SendParams>(schema(ctx, 'rpc-message-send.json'), params, 'params');
  // A task takes one message and ends with its answer: a conversation goes on in a new task of its context.
  if (p.message.taskId !== undefined) {
    const row = await mustGetTask(endpoint, p.message.taskId);
    throw new RpcError(-32004, `task ${row.id} is ${row.state} and takes no further messages: send a new message with contextId ${row.context_id} to go on with the conversation`);
  }
  const other = p.message.parts.find((part) => part.kind !== 'text');
  if (other) throw new RpcError(-32005, `Incompatible content types: only text parts are taken, not ${JSON.stringify(other.kind).slice(0, 50)}`);
  if (p.message.parts.some((part) => typeof part.text !== 'string' || part.text === '')) throw new RpcError(-32602, 'Invalid params: every text part needs a non-empty text');
  const text = p.message.parts.map((part) => part.text).join('\n\n');
  if (text.length > MAX_TEXT) throw new RpcError(-32602, `Invalid params: message parts may hold at most ${MAX_TEXT} characters together`);
  const agent = endpoint.agent ?? p.metadata?.agent ?? p.message.metadata?.agent;
  const row = await startTask(ctx, req.auth.tenantId, { requestId: req.id }, { text, ...(p.message.contextId ? { contextId: p.message.contextId } : {}), ...(agent ? { agent } : {}) });
  const answered = p.configuration?.blocking === true ? await current(endpoint, row, BLOCKING_WAIT_MS) : row;
  return toA2ATask(answered, p.configuration?.historyLength);
}

/** A task of the caller's tenant — of this endpoint's agent, on /a2a/agents/:id — or -32001. */
async function mustGetTask({ req, ctx, agent }: Endpoint, id: string): Promise<TaskRow> {
  const row = await new TaskStore(ctx.db).get(req.auth.tenantId, id);
  const owner = row && agent !== undefined ? (await resolveAgent(ctx.host, { requestId: req.id }, agent)).id : row?.agent_id;
  if (!row || row.agent_id !== owner) throw new RpcError(-32001, `Task not found: ${id}`);
  return row;
}

const current = ({ req, ctx }: Endpoint, row: TaskRow, waitMs?: number) => currentTask(ctx, req.auth.tenantId, { requestId: req.id }, row, waitMs);

function toRpcError(err: unknown): { code: number; message: string; data?: unknown } {
  if (err instanceof RpcError) return { code: err.code, message: err.message };
  const error = toRoostError(err);
  // A named agent that does not exist, or bad params: the caller's to fix.
  if (error.code === 'VALIDATION_ERROR' || error.code === 'NOT_FOUND') return { code: -32602, message: `Invalid params: ${error.message}`, data: { code: error.code } };
  return { code: -32603, message: error instanceof RoostError && error.code !== 'INTERNAL' ? error.message : 'Internal error', data: { code: error.code } };
}
