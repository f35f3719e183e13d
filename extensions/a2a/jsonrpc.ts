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
import type { ExtensionContext, RouteRequest, StreamedReply } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { schema, type A2AState } from './context.js';
import { PUSH_METHODS, inlineConfig } from './push-configs.js';
import { RpcError, cancel, getTask, sendTask, type Endpoint } from './operations.js';
import { eventV03, eventV1 } from './stream-shapes.js';
import { mustBeLive, sseReply, type TaskEvent } from './task-stream.js';
import { toA2ATask, type TaskRow } from './tasks.js';
import { SERVED_VERSIONS, dispatchV1, sendRowV1, type SendParamsV1 } from './v1.js';

type Id = string | number | null;

/** A2A 0.3 methods this server knows and does not offer. */
const UNSUPPORTED: Record<string, [number, string]> = {
  'agent/getAuthenticatedExtendedCard': [-32004, 'there is no extended card: the public card says everything'],
};

export async function serveJsonRpc(req: RouteRequest, ctx: ExtensionContext, state: A2AState, agent?: string): Promise<RouteReply | StreamedReply> {
  let id: Id = null;
  try {
    const call = parseCall(req.body);
    id = call.id;
    const version = checkVersion(req);
    const endpoint = { req, ctx, state, agent };
    // A request that declares A2A 1.0 is served as 1.0, which names its methods otherwise (SendMessage …).
    if (version === '1.0' && call.method.includes('/')) throw new RpcError(-32601, `Method not found: ${call.method} is A2A 0.3's; this request says A2A-Version 1.0 (send it without that header, or use 1.0's method)`);
    const stream = await streamCall(call.method, call.params, endpoint);
    if (stream) {
      const wrap = (result: unknown) => ({ jsonrpc: '2.0', id, result });
      return sseReply(endpoint, stream.row, (event) => wrap(stream.shape(event)), (err) => ({ data: { jsonrpc: '2.0', id, error: toRpcError(err) } }));
    }
    return ok({ jsonrpc: '2.0', id, result: await dispatch(call.method, call.params, endpoint) });
  } catch (err) {
    if (!(err instanceof RpcError) && toRoostError(err).code === 'INTERNAL') ctx.host.log('error', err instanceof Error ? (err.stack ?? err.message) : String(err));
    return ok({ jsonrpc: '2.0', id, error: toRpcError(err) });
  }
}

/** The version the request declares in A2A-Version, which must be one served here (-32009); none means 0.3. */
export function checkVersion(req: RouteRequest): (typeof SERVED_VERSIONS)[number] {
  const version = req.headers['a2a-version'];
  if (version === undefined || version.trim() === '') return '0.3';
  // Major.Minor is what counts (a client may send "0.3.0").
  const served = SERVED_VERSIONS.find((v) => v === version.trim().split('.').slice(0, 2).join('.'));
  if (!served) throw new RpcError(-32009, `Version not supported: ${version.slice(0, 20)}; this server speaks A2A ${SERVED_VERSIONS.join(' and ')}`);
  return served;
}

/** The streaming methods: the task to stream and the shape of its events, or undefined for any other method. */
async function streamCall(method: string, params: unknown, endpoint: Endpoint): Promise<{ row: TaskRow; shape: (event: TaskEvent) => unknown } | undefined> {
  if (method === 'message/stream') return { row: await sendRow(validate<SendParams>(schema(endpoint.ctx, 'rpc-message-send.json'), params, 'params'), endpoint, false), shape: eventV03 };
  if (method === 'tasks/resubscribe') return { row: mustBeLive(await getTask(endpoint, taskIdOf(params, endpoint), false)), shape: eventV03 };
  if (method === 'SendStreamingMessage') return { row: await sendRowV1(validate<SendParamsV1>(schema(endpoint.ctx, 'rpc-v1-send-message.json'), params, 'params'), endpoint, false), shape: eventV1 };
  if (method === 'SubscribeToTask') return { row: mustBeLive(await getTask(endpoint, taskIdOf(params, endpoint), false)), shape: eventV1 };
  return undefined;
}

const taskIdOf = (params: unknown, endpoint: Endpoint) => validate<{ id: string }>(schema(endpoint.ctx, 'rpc-task-id.json'), params, 'params').id;

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
  const push = PUSH_METHODS[method];
  if (push) return push(params, endpoint);
  const unsupported = UNSUPPORTED[method];
  if (unsupported) throw new RpcError(...unsupported);
  const v1 = await dispatchV1(method, params, endpoint);
  if (v1) return v1.result;
  throw new RpcError(-32601, `Method not found: ${method}`);
}

interface SendParams {
  message: { messageId: string; contextId?: string; taskId?: string; parts: Array<{ kind: string; text?: string }>; metadata?: { agent?: string } };
  configuration?: { blocking?: boolean; historyLength?: number; pushNotificationConfig?: { url?: unknown } };
  metadata?: { agent?: string };
}

async function sendMessage(params: unknown, endpoint: Endpoint): Promise<unknown> {
  const p = validate<SendParams>(schema(endpoint.ctx, 'rpc-message-send.json'), params, 'params');
  return toA2ATask(await sendRow(p, endpoint, p.configuration?.blocking === true), p.configuration?.historyLength);
}

/** 0.3's message/send (its params checked) as a task row; `blocking` waits for the answer. */
async function sendRow(p: SendParams, endpoint: Endpoint, blocking: boolean): Promise<TaskRow> {
  if (p.message.taskId !== undefined) await sendTask(endpoint, { texts: [], taskId: p.message.taskId, blocking: false });
  const other = p.message.parts.find((part) => part.kind !== 'text');
  if (other) throw new RpcError(-32005, `Incompatible content types: only text parts are taken, not ${JSON.stringify(other.kind).slice(0, 50)}`);
  if (p.message.parts.some((part) => typeof part.text !== 'string')) throw new RpcError(-32602, 'Invalid params: every text part needs a non-empty text');
  return sendTask(endpoint, {
    texts: p.message.parts.map((part) => part.text as string),
    ...(p.message.contextId ? { contextId: p.message.contextId } : {}),
    agent: p.metadata?.agent ?? p.message.metadata?.agent,
    blocking,
    afterStart: await inlineConfig(p.configuration?.pushNotificationConfig, endpoint, '0.3'),
  });
}

export function toRpcError(err: unknown): { code: number; message: string; data?: unknown } {
  if (err instanceof RpcError) return { code: err.code, message: err.message };
  const error = toRoostError(err);
  // A named agent that does not exist, or bad params: the caller's to fix.
  if (error.code === 'VALIDATION_ERROR' || error.code === 'NOT_FOUND') return { code: -32602, message: `Invalid params: ${error.message}`, data: { code: error.code } };
  return { code: -32603, message: error instanceof RoostError && error.code !== 'INTERNAL' ? error.message : 'Internal error', data: { code: error.code } };
}
