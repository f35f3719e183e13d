// svc_invoke_remote_agent: a task on a registered remote, over the A2A JSON-RPC binding its card names
// (Roost or any A2A server): read the remote's card, send the message there, then get the task until it
// ends or the wait runs out. The card decides the version: A2A 1.0 (SendMessage, GetTask, the A2A-Version
// header) when its supportedInterfaces offer 1.0 over JSON-RPC, else 0.3 (message/send, tasks/get). The remote's key goes only to its own origin: a card whose endpoint lies
// elsewhere is refused. A remote registered without a key is called without an Authorization header.
import { randomUUID } from 'node:crypto';
import { RoostError, validationError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { parseHttpUrl, request } from '../../sdk/outbound.js';
import { checkCard, type AgentCard } from './card.js';
import { REQUEST_TIMEOUT_MS, WELL_KNOWN_CARD, connect, describe, getJson, type Connection } from './remote-client.js';
import { RemoteStore } from './remotes.js';

const TASK_MAX_BYTES = 2 * 1024 * 1024;
/** A2A task states that end a task, and those in which it waits for its client (neither goes on by itself). */
const FINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);
const INTERRUPTED = new Set(['input-required', 'auth-required']);
const STATES = new Set([...FINAL, ...INTERRUPTED, 'submitted', 'working', 'unknown']);

export interface RemoteResult {
  remote: { id: string; name: string; url: string };
  taskId: string | null;
  state: string;
  reply: string;
  task: Record<string, any>;
}

interface RemoteTask {
  kind?: string;
  id: string;
  status: { state: string; message?: { parts?: unknown } };
  artifacts?: Array<{ parts?: unknown }>;
  [field: string]: any;
}

export async function invokeRemote(ctx: ExtensionContext, tenantId: string, input: { url: string; message: string; agent?: string; timeoutSeconds: number }): Promise<RemoteResult> {
  const url = parseHttpUrl(input.url);
  const remote = await new RemoteStore(ctx.db).matching(tenantId, url);
  if (!remote) throw validationError(`no remote server is registered for ${url.origin}: an owner registers it (with its API key) at POST /api/a2a/remotes`);
  const connection = await connect(ctx, tenantId, remote);
  const binding = await bindingOf(connection, remote.name);
  const rpc = new RemoteRpc(connection, remote.name, binding);
  const v1 = binding.version === '1.0';
  const metadata = input.agent ? { metadata: { agent: input.agent } } : {};
  const sent = v1
    ? await rpc.call('SendMessage', { message: { role: 'ROLE_USER', messageId: randomUUID(), parts: [{ text: input.message }] }, configuration: { returnImmediately: true }, ...metadata })
    : await rpc.call('message/send', { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: input.message }] }, ...metadata });
  const summary = { id: remote.id, name: remote.name, url: remote.url };
  // A remote may answer with a message rather than a task: that is its whole answer (1.0 says which in the
  // result's one field, {task} or {message}; 0.3 in the result's kind).
  const answer = v1 ? (sent as { task?: unknown; message?: unknown } | null) : null;
  const message = v1 ? answer?.message : (sent as { kind?: unknown } | null)?.kind === 'message' ? sent : undefined;
  if (message) return { remote: summary, taskId: null, state: 'completed', reply: textOf((message as { parts?: unknown }).parts), task: message as Record<string, any> };
  const getTask = async (id: string) => checkTask(await rpc.call(v1 ? 'GetTask' : 'tasks/get', { id }), remote.name);
  let task = checkTask(v1 ? answer?.task : sent, remote.name);
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  for (let delay = 100; !FINAL.has(task.status.state) && !INTERRUPTED.has(task.status.state); delay = Math.min(delay * 2, 2_000)) {
    if (Date.now() + delay > deadline) {
      throw new RoostError('TIMEOUT', `remote task ${task.id} on ${remote.name} is still ${task.status.state} after ${input.timeoutSeconds} s; it goes on there (tasks/get at ${rpc.endpoint.href})`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    task = await getTask(task.id);
  }
  const reply = textOf(task.artifacts?.[0]?.parts) || textOf(task.status.message?.parts);
  if (task.status.state !== 'completed') throw new RoostError('UPSTREAM_ERROR', `remote task ${task.id} on ${remote.name} ${task.status.state}${reply ? `: ${reply}` : ''}`, { status: 502 });
  return { remote: summary, taskId: task.id, state: task.status.state, reply, task };
}

interface Binding {
  endpoint: URL;
  version: '0.3' | '1.0';
}

/** The JSON-RPC endpoint the remote's card names, and its A2A version (1.0 where offered), on the remote's own origin. */
async function bindingOf(connection: Connection, name: string): Promise<Binding> {
  const cardUrl = new URL(WELL_KNOWN_CARD, connection.base);
  const reply = await getJson(connection, cardUrl);
  if (reply.status !== 200) throw new RoostError('UPSTREAM_ERROR', `remote ${name} answered ${reply.status} for its agent card ${cardUrl.href}${describe(reply.body)}`, { status: 502 });
  const chosen = jsonRpcInterface(checkCard(reply.body, cardUrl.href));
  if (!chosen) throw new RoostError('UPSTREAM_ERROR', `remote ${name}'s agent card names no A2A JSON-RPC endpoint (of A2A 1.0 or 0.3)`, { status: 502 });
  const endpoint = parseHttpUrl(chosen.url, `the url of remote ${name}'s card`);
  const origin = new URL(connection.base).origin;
  if (endpoint.origin !== origin) throw new RoostError('UPSTREAM_ERROR', `remote ${name}'s card points at ${endpoint.origin}, not at the remote (${origin}): its key is not sent there`, { status: 502 });
  return { endpoint, version: chosen.version };
}

const isJsonRpc = (binding: string) => binding.toUpperCase() === 'JSONRPC';

/** 1.0's JSON-RPC interface when the card lists one in supportedInterfaces, else 0.3's (its url, or an interface naming 0.3). */
function jsonRpcInterface(card: AgentCard): { url: string; version: Binding['version'] } | undefined {
  const listed = card.supportedInterfaces?.filter((i) => isJsonRpc(i.protocolBinding)) ?? [];
  const v1 = listed.find((i) => i.protocolVersion?.startsWith('1.'));
  if (v1) return { url: v1.url, version: '1.0' };
  // A 0.3 card's url speaks its preferredTransport (JSONRPC when it names none); additionalInterfaces may name another.
  const url = (card.preferredTransport ?? 'JSONRPC') === 'JSONRPC' ? card.url : card.additionalInterfaces?.find((i) => i.transport === 'JSONRPC')?.url;
  const v03 = url ?? listed.find((i) => i.protocolVersion?.startsWith('0.3'))?.url;
  return v03 ? { url: v03, version: '0.3' } : undefined;
}

class RemoteRpc {
  constructor(
    private readonly connection: Connection,
    private readonly name: string,
    private readonly binding: Binding,
  ) {}

  get endpoint(): URL {
    return this.binding.endpoint;
  }

  /** The call's result; a JSON-RPC error, or an answer that is none, is UPSTREAM_ERROR naming it. */
  async call(method: string, params: Record<string, unknown>): Promise<unknown> {
    const reply = await request({
      // A 1.0 server takes a request without A2A-Version as 0.3's, so 1.0 calls say their version.
      method: 'POST', url: this.endpoint, headers: this.binding.version === '1.0' ? { ...this.connection.headers, 'a2a-version': '1.0' } : this.connection.headers, body: { jsonrpc: '2.0', id: randomUUID(), method, params },
      timeoutMs: REQUEST_TIMEOUT_MS, maxBytes: TASK_MAX_BYTES, reach: this.connection.reachOf(this.endpoint),
    });
    const body = reply.body as { result?: unknown; error?: { code?: unknown; message?: unknown } } | null;
    if (reply.status === 401 && !this.connection.headers.authorization) {
      throw new RoostError('UPSTREAM_ERROR', `remote ${this.name} answered 401 to ${method}: it needs an API key, which an owner sets on the remote (PUT /api/a2a/remotes/:id)`, { status: 502 });
    }
    // A JSON-RPC error is named as such whatever the HTTP status it came with (SDK 1.x servers answer some with 4xx).
    const rpcError = body && typeof body === 'object' && body.error && typeof body.error === 'object';
    if (!rpcError && (reply.status !== 200 || !body || typeof body !== 'object')) {
      throw new RoostError('UPSTREAM_ERROR', `remote ${this.name} answered ${reply.status} to ${method}${describe(reply.body)}`, { status: 502 });
    }
    if (body!.error) throw new RoostError('UPSTREAM_ERROR', `remote ${this.name} refused ${method} (${String(body!.error.code)}): ${String(body!.error.message ?? '').slice(0, 500)}`, { status: 502 });
    return body!.result;
  }
}

/** A task of either version, its state in 0.3's spelling (1.0's TASK_STATE_INPUT_REQUIRED is input-required). */
function checkTask(value: unknown, remote: string): RemoteTask {
  const raw = value as RemoteTask | null;
  const state = raw?.status?.state;
  const task = typeof state === 'string' && state.startsWith('TASK_STATE_') ? { ...raw!, status: { ...raw!.status, state: state.slice('TASK_STATE_'.length).toLowerCase().replace(/_/g, '-') } } : raw;
  if (!task || typeof task !== 'object' || typeof task.id !== 'string' || typeof task.status !== 'object' || !STATES.has(task.status?.state)) {
    throw new RoostError('UPSTREAM_ERROR', `remote ${remote} answered something that is not an A2A task`, { status: 502 });
  }
  return task;
}

function textOf(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
}
