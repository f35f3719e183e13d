// svc_invoke_remote_agent: a task on a registered remote, over the A2A JSON-RPC binding its card names
// (Roost or any A2A server): read the remote's card, message/send there, then tasks/get until the task
// ends or the wait runs out. The remote's key goes only to its own origin: a card whose endpoint lies
// elsewhere is refused. A remote registered without a key is called without an Authorization header.
import { randomUUID } from 'node:crypto';
import { RoostError, validationError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { parseHttpUrl, request } from '../_shared/outbound.js';
import { checkCard } from './card.js';
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
  const rpc = new RemoteRpc(connection, remote.name, await endpointOf(connection, remote.name));
  const message = { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: input.message }] };
  const sent = await rpc.call('message/send', { message, ...(input.agent ? { metadata: { agent: input.agent } } : {}) });
  const summary = { id: remote.id, name: remote.name, url: remote.url };
  // A remote may answer with a message rather than a task: that is its whole answer.
  if ((sent as { kind?: unknown } | null)?.kind === 'message') return { remote: summary, taskId: null, state: 'completed', reply: textOf((sent as { parts?: unknown }).parts), task: sent as Record<string, any> };
  let task = checkTask(sent, remote.name);
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  for (let delay = 100; !FINAL.has(task.status.state) && !INTERRUPTED.has(task.status.state); delay = Math.min(delay * 2, 2_000)) {
    if (Date.now() + delay > deadline) {
      throw new RoostError('TIMEOUT', `remote task ${task.id} on ${remote.name} is still ${task.status.state} after ${input.timeoutSeconds} s; it goes on there (tasks/get at ${rpc.endpoint.href})`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    task = checkTask(await rpc.call('tasks/get', { id: task.id }), remote.name);
  }
  const reply = textOf(task.artifacts?.[0]?.parts) || textOf(task.status.message?.parts);
  if (task.status.state !== 'completed') throw new RoostError('UPSTREAM_ERROR', `remote task ${task.id} on ${remote.name} ${task.status.state}${reply ? `: ${reply}` : ''}`, { status: 502 });
  return { remote: summary, taskId: task.id, state: task.status.state, reply, task };
}

/** The JSON-RPC endpoint the remote's card names, on the remote's own origin. */
async function endpointOf(connection: Connection, name: string): Promise<URL> {
  const cardUrl = new URL(WELL_KNOWN_CARD, connection.base);
  const reply = await getJson(connection, cardUrl);
  if (reply.status !== 200) throw new RoostError('UPSTREAM_ERROR', `remote ${name} answered ${reply.status} for its agent card ${cardUrl.href}${describe(reply.body)}`, { status: 502 });
  const card = checkCard(reply.body, cardUrl.href);
  // The card's url speaks its preferredTransport (JSONRPC when it names none); additionalInterfaces may name another.
  const url = (card.preferredTransport ?? 'JSONRPC') === 'JSONRPC' ? card.url : card.additionalInterfaces?.find((i) => i.transport === 'JSONRPC')?.url;
  if (!url) throw new RoostError('UPSTREAM_ERROR', `remote ${name}'s agent card names no A2A JSON-RPC endpoint`, { status: 502 });
  const endpoint = parseHttpUrl(url, `the url of remote ${name}'s card`);
  const origin = new URL(connection.base).origin;
  if (endpoint.origin !== origin) throw new RoostError('UPSTREAM_ERROR', `remote ${name}'s card points at ${endpoint.origin}, not at the remote (${origin}): its key is not sent there`, { status: 502 });
  return endpoint;
}

class RemoteRpc {
  constructor(
    private readonly connection: Connection,
    private readonly name: string,
    readonly endpoint: URL,
  ) {}

  /** The call's result; a JSON-RPC error, or an answer that is none, is UPSTREAM_ERROR naming it. */
  async call(method: string, params: Record<string, unknown>): Promise<unknown> {
    const reply = await request({
      method: 'POST', url: this.endpoint, headers: this.connection.headers, body: { jsonrpc: '2.0', id: randomUUID(), method, params },
      timeoutMs: REQUEST_TIMEOUT_MS, maxBytes: TASK_MAX_BYTES, reach: this.connection.reachOf(this.endpoint),
    });
    const body = reply.body as { result?: unknown; error?: { code?: unknown; message?: unknown } } | null;
    if (reply.status === 401 && !this.connection.headers.authorization) {
      throw new RoostError('UPSTREAM_ERROR', `remote ${this.name} answered 401 to ${method}: it needs an API key, which an owner sets on the remote (PUT /api/a2a/remotes/:id)`, { status: 502 });
    }
    if (reply.status !== 200 || !body || typeof body !== 'object') {
      throw new RoostError('UPSTREAM_ERROR', `remote ${this.name} answered ${reply.status} to ${method}${describe(reply.body)}`, { status: 502 });
    }
    if (body.error) throw new RoostError('UPSTREAM_ERROR', `remote ${this.name} refused ${method} (${String(body.error.code)}): ${String(body.error.message ?? '').slice(0, 500)}`, { status: 502 });
    return body.result;
  }
}

function checkTask(value: unknown, remote: string): RemoteTask {
  const task = value as RemoteTask | null;
  if (!task || typeof task !== 'object' || typeof task.id !== 'string' || typeof task.status !== 'object' || !STATES.has(task.status?.state)) {
    throw new RoostError('UPSTREAM_ERROR', `remote ${remote} answered something that is not an A2A task`, { status: 502 });
  }
  return task;
}

function textOf(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
}
