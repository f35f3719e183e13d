// A2A 1.0's HTTP+JSON binding, where the cards' HTTP+JSON interface points: <base>/message:send,
// GET <base>/tasks/{id}, <base>/tasks/{id}:cancel, with <base> /a2a/v1 (the agent in metadata.agent, or
// the tenant's only one) or /a2a/agents/:id/v1 (that agent). Bodies are 1.0's JSON (v1.ts); an error is
// google.rpc.Status as the binding says: {error: {code, status, message, details: [ErrorInfo]}}. The
// routes are raw, so a body that is not JSON, and every A2A error, get the binding's answer.
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { scanJsonLimits, EDGE_JSON_LIMITS } from '../../protocol/json-limits.js';
import type { RouteReply } from '../../protocol/messages.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { checkVersion } from './jsonrpc.js';
import { RpcError, cancel, getTask, type Endpoint } from './operations.js';
import { sendMessageV1, toV1Task } from './v1.js';

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
const STREAMING = 'streaming is not supported (the card says capabilities.streaming: false): use message:send, then GET the task';

type Operation = (endpoint: Endpoint) => Promise<unknown>;

async function serve(req: RouteRequest, ctx: ExtensionContext, operation: Operation): Promise<RouteReply> {
  try {
    checkVersion(req);
    return ok(await operation({ req, ctx, agent: req.params.id }));
  } catch (err) {
    if (!(err instanceof RpcError) && toRoostError(err).code === 'INTERNAL') ctx.host.log('error', err instanceof Error ? (err.stack ?? err.message) : String(err));
    return statusOf(err);
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
export function restRoutes(base: string): Record<string, RouteHandler> {
  return {
    [`POST ${base}/:operation`]: (req, ctx) => serve(req, ctx, (endpoint) => {
      if (req.params.operation === 'message:send') return sendMessageV1(jsonBody(req), endpoint);
      if (req.params.operation === 'message:stream') throw new RpcError(-32004, STREAMING);
      throw new RpcError(-32601, `no A2A operation at ${req.path}`);
    }),
    [`GET ${base}/tasks`]: (req, ctx) => serve(req, ctx, async () => {
      throw new RpcError(-32004, 'listing tasks is not supported: GET a task by its id');
    }),
    [`GET ${base}/tasks/:task`]: (req, ctx) => serve(req, ctx, async (endpoint) => toV1Task(await getTask(endpoint, req.params.task!), historyLength(req))),
    // {id}:cancel and {id}:subscribe: the colon is in the segment, as the binding writes it.
    [`POST ${base}/tasks/:task`]: (req, ctx) => serve(req, ctx, async (endpoint) => {
      const [, id, verb] = /^(.+):(cancel|subscribe)$/.exec(req.params.task!) ?? [];
      if (verb === 'cancel') return toV1Task(await cancel(endpoint, id!));
      if (verb === 'subscribe') throw new RpcError(-32004, STREAMING);
      throw new RpcError(-32601, `no A2A operation at ${req.path}`);
    }),
  };
}
