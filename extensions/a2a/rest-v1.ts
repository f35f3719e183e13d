// A2A 1.0's HTTP+JSON binding, where the cards' HTTP+JSON interface points: <base>/message:send,
// GET <base>/tasks/{id}, <base>/tasks/{id}:cancel, with <base> /a2a/v1 (the agent in metadata.agent, or
// the tenant's only one) or /a2a/agents/:id/v1 (that agent). Bodies are 1.0's JSON (v1.ts); an error is
// google.rpc.Status as the binding says: {error: {code, status, message, details: [ErrorInfo]}}. The
// routes are raw, so a body that is not JSON, and every A2A error, get the binding's answer.
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { scanJsonLimits, EDGE_JSON_LIMITS } from '../../protocol/json-limits.js';
import type { RouteReply } from '../../protocol/messages.js';
import type { ExtensionContext, RouteHandler, RouteRequest, StreamedReply } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { validate } from '../../protocol/validate.js';
import { schema, type A2AState } from './context.js';
import { checkVersion } from './jsonrpc.js';
import { RpcError, cancel, getTask, type Endpoint } from './operations.js';
import { listParamsOf, listTasks } from './list-tasks.js';
import { deleteConfig, getConfig, listConfigs, setConfig } from './push-configs.js';
import { eventV1 } from './stream-shapes.js';
import { mustBeLive, sseReply } from './task-stream.js';
import type { TaskRow } from './tasks.js';
import { sendMessageV1, sendRowV1, type SendParamsV1 } from './v1.js';
import { toV1Task } from './v1-shapes.js';

/** Each A2A error code as the binding answers it: HTTP status, google.rpc status name, ErrorInfo reason. */
const AS_HTTP: Record<number, [number, string, string]> = {
  [-32700]: [400, 'INVALID_ARGUMENT', 'PARSE_ERROR'],
  [-32600]: [400, 'INVALID_ARGUMENT', 'INVALID_REQUEST'],
  [-32602]: [400, 'INVALID_ARGUMENT', 'INVALID_PARAMS'],
  [-32601]: [404, 'NOT_FOUND', 'METHOD_NOT_FOUND'],
  [-32001]: [404, 'NOT_FOUND', 'TASK_NOT_FOUND'],
  [-32002]: [400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE'],
  [-32003]: [400, 'FAILED_PRECONDITION', 'PUSH_NOTIFICATION_NOT_SUPPORTED'],
  [-32004]: [400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION'],
  [-32005]: [400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED'],
  [-32009]: [400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED'],
};
/** google.rpc's status names for the server's own refusals (a rate limit, a store that cannot answer now …). */
const STATUS_NAMES: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 409: 'ABORTED', 413: 'INVALID_ARGUMENT', 429: 'RESOURCE_EXHAUSTED', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED' };

type Operation = (endpoint: Endpoint) => Promise<unknown>;

async function serve(req: RouteRequest, ctx: ExtensionContext, state: A2AState, operation: Operation): Promise<RouteReply | StreamedReply> {
  try {
    checkVersion(req);
    const result = await operation({ req, ctx, state, agent: req.params.id });
    return result instanceof Streamed ? result.reply : ok(result);
  } catch (err) {
    if (!(err instanceof RpcError) && toRoostError(err).code === 'INTERNAL') ctx.host.log('error', err instanceof Error ? (err.stack ?? err.message) : String(err));
    return statusOf(err);
  }
}

/** An operation's answer that is a stream of StreamResponse events; an error midway is an `error` event. */
class Streamed {
  readonly reply: StreamedReply;
  constructor(endpoint: Endpoint, row: TaskRow) {
    this.reply = sseReply(endpoint, row, eventV1, (err) => ({ event: 'error', data: statusOf(err).body }));
  }
}

function statusOf(err: unknown): RouteReply {
  let code = -32603;
  let message = 'Internal error';
  if (err instanceof RpcError) [code, message] = [err.code, err.message];
  else {
    const error = toRoostError(err);
    if (error.code === 'VALIDATION_ERROR' || error.code === 'NOT_FOUND') [code, message] = [-32602, error.message];
    else if (error instanceof RoostError && error.code !== 'INTERNAL') {
      return { status: error.status, body: { error: { code: error.status, status: STATUS_NAMES[error.status] ?? 'UNKNOWN', message: error.message, details: [] } } };
    }
  }
  const [status, name, reason] = AS_HTTP[code] ?? [500, 'INTERNAL', 'INTERNAL_ERROR'];
  return { status, body: { error: { code: status, status: name, message, details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }] } } };
}

function jsonBody(req: RouteRequest): unknown {
  const text = typeof req.body === 'string' ? req.body : '';
  const tooBig = scanJsonLimits(text, EDGE_JSON_LIMITS);
  if (tooBig) throw new RpcError(-32600, tooBig);
  try {
    return JSON.parse(text);
  } catch {
    throw new RpcError(-32700, 'the body is not JSON');
  }
}

function historyLength(req: RouteRequest): number | undefined {
  const raw = req.query.historyLength;
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== 'string' || !Number.isInteger(n) || n < 0) throw new RpcError(-32602, 'historyLength must be an integer of 0 or more');
  return n;
}

/** The binding's routes under one base: /a2a/v1 or /a2a/agents/:id/v1. */
export function restRoutes(base: string): Record<string, RouteHandler<A2AState>> {
  return {
    [`POST ${base}/:operation`]: (req, ctx, state) => serve(req, ctx, state, async (endpoint) => {
      if (req.params.operation === 'message:send') return sendMessageV1(jsonBody(req), endpoint);
      if (req.params.operation === 'message:stream') return new Streamed(endpoint, await sendRowV1(validate<SendParamsV1>(schema(ctx, 'rpc-v1-send-message.json'), jsonBody(req), 'params'), endpoint, false));
      throw new RpcError(-32601, `no A2A operation at ${req.path}`);
    }),
    [`GET ${base}/tasks`]: (req, ctx, state) => serve(req, ctx, state, (endpoint) => listTasks(listParamsOf(req.query), endpoint)),
    [`GET ${base}/tasks/:task`]: (req, ctx, state) => serve(req, ctx, state, async (endpoint) => {
      const subscribe = /^(.+):subscribe$/.exec(req.params.task!)?.[1];
      if (subscribe !== undefined) return new Streamed(endpoint, mustBeLive(await getTask(endpoint, subscribe, false)));
      return toV1Task(await getTask(endpoint, req.params.task!), historyLength(req));
    }),
    // {id}:cancel and {id}:subscribe: the colon is in the segment, as the binding writes it.
    [`POST ${base}/tasks/:task`]: (req, ctx, state) => serve(req, ctx, state, async (endpoint) => {
      const [, id, verb] = /^(.+):(cancel|subscribe)$/.exec(req.params.task!) ?? [];
      if (verb === 'cancel') return toV1Task(await cancel(endpoint, id!));
      if (verb === 'subscribe') return new Streamed(endpoint, mustBeLive(await getTask(endpoint, id!, false)));
      throw new RpcError(-32601, `no A2A operation at ${req.path}`);
    }),
    [`POST ${base}/tasks/:task/pushNotificationConfigs`]: (req, ctx, state) =>
      serve(req, ctx, state, async (endpoint) => setConfig({ ...(jsonBody(req) as object), taskId: req.params.task }, endpoint, '1.0')),
    [`GET ${base}/tasks/:task/pushNotificationConfigs`]: (req, ctx, state) => serve(req, ctx, state, (endpoint) => listConfigs({ taskId: req.params.task }, endpoint, '1.0')),
    [`GET ${base}/tasks/:task/pushNotificationConfigs/:config`]: (req, ctx, state) =>
      serve(req, ctx, state, (endpoint) => getConfig({ taskId: req.params.task, id: req.params.config }, endpoint, '1.0')),
    [`DELETE ${base}/tasks/:task/pushNotificationConfigs/:config`]: (req, ctx, state) =>
      serve(req, ctx, state, (endpoint) => deleteConfig({ taskId: req.params.task, id: req.params.config }, endpoint, '1.0')),
  };
}
