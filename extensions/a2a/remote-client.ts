// Talking to other servers: fetching agent cards, and running a task on a registered remote (send it,
// then poll GET /a2a/tasks/:id until it ends or the wait runs out).
import { randomUUID } from 'node:crypto';
import { RoostError, validationError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { checkCard, type AgentCard } from './card.js';
import { parseHttpUrl, request, type OutboundReply } from '../_shared/outbound.js';
import { RemoteStore, type Remote } from './remotes.js';
import { Sealer } from '../_shared/sealed.js';
import { FINAL_STATES, type TaskState } from './tasks.js';

const CARD_MAX_BYTES = 256 * 1024;
const TASK_MAX_BYTES = 2 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 10_000;
export const WELL_KNOWN_CARD = '/.well-known/agent-card.json';

/** A remote with its key opened, ready for requests. */
export interface Connection {
  remote: Remote;
  base: string;
  headers: Record<string, string>;
}

export async function connect(ctx: ExtensionContext, tenantId: string, remote: Remote): Promise<Connection> {
  const key = remote.hasApiKey ? await new RemoteStore(ctx.db).apiKey(tenantId, remote.id, await Sealer.forExtension(ctx.host)) : null;
  return { remote, base: remote.url, headers: key ? { authorization: `Bearer ${key}` } : {} };
}

export async function getJson(connection: Connection | null, url: URL, maxBytes = CARD_MAX_BYTES): Promise<OutboundReply> {
  return request({ method: 'GET', url, headers: connection?.headers ?? {}, timeoutMs: REQUEST_TIMEOUT_MS, maxBytes, reach: connection ? 'any' : 'no-metadata' });
}

/** svc_discover_agent: the card at a URL (a server's base URL means its well-known card). */
export async function discoverCard(ctx: ExtensionContext, tenantId: string, raw: string): Promise<{ url: string; remote: Remote | null; card: AgentCard }> {
  const given = parseHttpUrl(raw);
  const url = given.pathname === '/' || given.pathname === '' ? new URL(WELL_KNOWN_CARD, given.origin) : given;
  const remote = (await new RemoteStore(ctx.db).matching(tenantId, url)) ?? null;
  const reply = await getJson(remote ? await connect(ctx, tenantId, remote) : null, url);
  if (reply.status !== 200) throw new RoostError('UPSTREAM_ERROR', `${url.href} answered ${reply.status}${describe(reply.body)}`, { status: 502 });
  return { url: url.href, remote, card: checkCard(reply.body, url.href) };
}

export interface RemoteResult {
  remote: { id: string; name: string; url: string };
  taskId: string;
  state: TaskState;
  reply: string;
  task: Record<string, any>;
}

/** svc_invoke_remote_agent: a task on a registered remote, waited for. */
export async function invokeRemote(ctx: ExtensionContext, tenantId: string, input: { url: string; message: string; agent?: string; timeoutSeconds: number }): Promise<RemoteResult> {
  const url = parseHttpUrl(input.url);
  const remote = await new RemoteStore(ctx.db).matching(tenantId, url);
  if (!remote) throw validationError(`no remote server is registered for ${url.origin}: an owner registers it (with its API key) at POST /api/a2a/remotes`);
  if (!remote.hasApiKey) throw validationError(`remote ${remote.name} has no API key: an owner sets one with PUT /api/a2a/remotes/${remote.id}`);
  const connection = await connect(ctx, tenantId, remote);
  const body = { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: input.message }] }, ...(input.agent ? { agent: input.agent } : {}) };
  const sent = await request({ method: 'POST', url: new URL(`${connection.base}/a2a/tasks/send`), headers: connection.headers, body, timeoutMs: REQUEST_TIMEOUT_MS, maxBytes: TASK_MAX_BYTES, reach: 'any' });
  if (sent.status !== 200 && sent.status !== 201) throw new RoostError('UPSTREAM_ERROR', `remote ${remote.name} refused the task (${sent.status})${describe(sent.body)}`, { status: 502 });
  let task = checkTask(sent.body, remote.name);
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  for (let delay = 100; !FINAL_STATES.has(task.status.state); delay = Math.min(delay * 2, 2_000)) {
    if (Date.now() + delay > deadline) {
      throw new RoostError('TIMEOUT', `remote task ${task.id} on ${remote.name} is still ${task.status.state} after ${input.timeoutSeconds} s; it goes on there (GET ${connection.base}/a2a/tasks/${task.id})`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    const polled = await getJson(connection, new URL(`${connection.base}/a2a/tasks/${encodeURIComponent(task.id)}`), TASK_MAX_BYTES);
    if (polled.status !== 200) throw new RoostError('UPSTREAM_ERROR', `remote ${remote.name} answered ${polled.status} for task ${task.id}${describe(polled.body)}`, { status: 502 });
    task = checkTask(polled.body, remote.name);
  }
  const reply = textOf(task.artifacts?.[0]?.parts) || textOf(task.status.message?.parts);
  if (task.status.state !== 'completed') throw new RoostError('UPSTREAM_ERROR', `remote task ${task.id} on ${remote.name} ${task.status.state}${reply ? `: ${reply}` : ''}`, { status: 502 });
  return { remote: { id: remote.id, name: remote.name, url: remote.url }, taskId: task.id, state: task.status.state, reply, task };
}

interface RemoteTask {
  id: string;
  status: { state: TaskState; message?: { parts?: unknown } };
  artifacts?: Array<{ parts?: unknown }>;
  [field: string]: any;
}

const STATES = new Set(['submitted', 'working', 'completed', 'failed', 'canceled']);

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

function describe(body: unknown): string {
  const error = body && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
  return typeof error === 'string' ? `: ${error.slice(0, 500)}` : '';
}
