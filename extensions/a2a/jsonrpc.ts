// The A2A protocol's JSON-RPC 2.0 binding (https://a2a-protocol.org, versions 0.3 and 1.0: each method
// answers in its own version's shapes, v1.ts has 1.0's), where the cards point:
// POST /a2a (the agent named in metadata.agent, or the tenant's only one) and POST /a2a/agents/:id (that
// agent). Methods: message/send (a task; `contextId` continues a conversation, `configuration.blocking`
// waits for the answer), tasks/get, tasks/cancel. Every answer is HTTP 200 with a JSON-RPC response;
// what fails is a JSON-RPC error: -32700 parse error, -32600 invalid request, -32601 method not found,
// -32602 invalid params, -32603 internal error, and A2A's -32001 task not found, -32002 task not
// cancelable, -32003 push notifications not supported, -32004 unsupported operation, -32005 content
// type not supported, -32007 no extended card, -32009 a version (A2A-Version header) not served.
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { scanJsonLimits, EDGE_JSON_LIMITS } from '../../protocol/json-limits.js';
import type { RouteReply } from '../../protocol/messages.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteRequest } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { schema } from './context.js';
import { RpcError, cancel, getTask, sendTask, type Endpoint } from './operations.js';
import { toA2ATask } from './tasks.js';
import { SERVED_VERSIONS, dispatchV1 } from './v1.js';

type Id = string | number | null;

/** A2A 0.3 methods this server knows and does not offer. */
const UNSUPPORTED: Record<string, [number, string]> = {
  'message/stream': [-32004, 'streaming is not supported (the card says capabilities.streaming: false): use message/send, then tasks/get'],
  'tasks/resubscribe': [-32004, 'streaming is not supported (the card says capabilities.streaming: false): poll tasks/get'],
  'agent/getAuthenticatedExtendedCard': [-32004, 'there is no extended card: the public card says everything'],
};

export async function serveJsonRpc(req: RouteRequest, ctx: ExtensionContext, agent?: string): Promise<RouteReply> {
  let id: Id = null;
  try {
    const call = parseCall(req.body);
    id = call.id;
    checkVersion(req);
    return ok({ jsonrpc: '2.0', id, result: await dispatch(call.method, call.params, { req, ctx, agent }) });
  } catch (err) {
    if (!(err instanceof RpcError) && toRoostError(err).code === 'INTERNAL') ctx.host.log('error', err instanceof Error ? (err.stack ?? err.message) : String(err));
    return ok({ jsonrpc: '2.0', id, error: toRpcError(err) });
  }
}

/** A request naming a version in A2A-Version must name one served here (-32009); none means 0.3. */
export function checkVersion(req: RouteRequest): void {
  const version = req.headers['a2a-version'];
  // Major.Minor is what counts (a client may send "0.3.0").
  if (version !== undefined && version.trim() !== '' && !(SERVED_VERSIONS as readonly string[]).includes(version.trim().split('.').slice(0, 2).join('.'))) {
    throw new RpcError(-32009, `Version not supported: ${version.slice(0, 20)}; this server speaks A2A ${SERVED_VERSIONS.join(' and ')}`);
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

/** 0.3's methods by their names (message/send …), 1.0's by theirs (SendMessage …): one endpoint serves both. */
async function dispatch(method: string, params: unknown, endpoint: Endpoint): Promise<unknown> {
  if (method === 'message/send') return sendMessage(params, endpoint);
  if (method === 'tasks/get') {
    const p = validate<{ id: string; historyLength?: number }>(schema(endpoint.ctx, 'rpc-task-id.json'), params, 'params');
    return toA2ATask(await getTask(endpoint, p.id), p.historyLength);
  }
  if (method === 'tasks/cancel') {
    const p = validate<{ id: string }>(schema(endpoint.ctx, 'rpc-task-id.json'), params, 'params');
    return toA2ATask(await cancel(endpoint, p.id));
  }
  if (method.startsWith('tasks/pushNotificationConfig/')) throw new RpcError(-32003, 'Push Notification is not supported (the card says capabilities.pushNotifications: false)');
  const unsupported = UNSUPPORTED[method];
  if (unsupported) throw new RpcError(...unsupported);
  const v1 = await dispatchV1(method, params, endpoint);
  if (v1) return v1.result;
  throw new RpcError(-32601, `Method not found: ${method}`);
}

interface SendParams {
  message: { messageId: string; contextId?: string; taskId?: string; parts: Array<{ kind: string; text?: string }>; metadata?: { agent?: string } };
  configuration?: { blocking?: boolean; historyLength?: number };
  metadata?: { agent?: string };
}

async function sendMessage(params: unknown, endpoint: Endpoint): Promise<unknown> {
  const p = validate<SendParams>(schema(endpoint.ctx, 'rpc-message-send.json'), params, 'params');
  if (p.message.taskId !== undefined) await sendTask(endpoint, { texts: [], taskId: p.message.taskId, blocking: false });
  const other = p.message.parts.find((part) => part.kind !== 'text');
  if (other) throw new RpcError(-32005, `Incompatible content types: only text parts are taken, not ${JSON.stringify(other.kind).slice(0, 50)}`);
  if (p.message.parts.some((part) => typeof part.text !== 'string')) throw new RpcError(-32602, 'Invalid params: every text part needs a non-empty text');
  const row = await sendTask(endpoint, {
    texts: p.message.parts.map((part) => part.text as string),
    ...(p.message.contextId ? { contextId: p.message.contextId } : {}),
    agent: p.metadata?.agent ?? p.message.metadata?.agent,
    blocking: p.configuration?.blocking === true,
  });
  return toA2ATask(row, p.configuration?.historyLength);
}

function toRpcError(err: unknown): { code: number; message: string; data?: unknown } {
  if (err instanceof RpcError) return { code: err.code, message: err.message };
  const error = toRoostError(err);
  // A named agent that does not exist, or bad params: the caller's to fix.
  if (error.code === 'VALIDATION_ERROR' || error.code === 'NOT_FOUND') return { code: -32602, message: `Invalid params: ${error.message}`, data: { code: error.code } };
  return { code: -32603, message: error instanceof RoostError && error.code !== 'INTERNAL' ? error.message : 'Internal error', data: { code: error.code } };
}
