// What both A2A versions (0.3 and 1.0) and both bindings (JSON-RPC, HTTP+JSON) do alike on this server's
// tasks: send a message (a new task, or a new turn of its context), read a task, the errors by their A2A
// codes. Each version maps its own shapes onto these (jsonrpc.ts for 0.3, v1.ts for 1.0).
import { resolveAgent } from '../agents/contract.js';
import type { ExtensionContext, RouteRequest } from '../../sdk/extension.js';
import type { A2AState } from './context.js';
import { cancelTask, currentTask, startTask } from './run-tasks.js';
import { FINAL_STATES, TaskStore, type TaskRow } from './tasks.js';

const MAX_TEXT = 100_000;
/** How long a blocking send waits for the answer before answering the working task. */
const BLOCKING_WAIT_MS = 120_000;

/** An A2A error: its JSON-RPC code (-32001 task not found … -32009 version not supported) and sentence. */
export class RpcError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

export interface Endpoint {
  req: RouteRequest;
  ctx: ExtensionContext;
  state: A2AState;
  /** The agent of /a2a/agents/:id (its id or name), or undefined for the server's endpoints. */
  agent: string | undefined;
}

export interface SendInput {
  texts: string[];
  contextId?: string;
  taskId?: string;
  agent?: string | undefined;
  blocking: boolean;
  /** Runs once the task exists, before a blocking send waits (a push config given with the message). */
  afterStart?: (row: TaskRow) => Promise<unknown>;
}

export async function sendTask(endpoint: Endpoint, input: SendInput): Promise<TaskRow> {
  const { ctx, req } = endpoint;
  // A task takes one message and ends with its answer: a conversation goes on in a new task of its context.
  if (input.taskId !== undefined) {
    const row = await getTask(endpoint, input.taskId, false);
    throw new RpcError(-32004, `task ${row.id} is ${row.state} and takes no further messages: send a new message with contextId ${row.context_id} to go on with the conversation`);
  }
  if (input.texts.some((text) => text === '')) throw new RpcError(-32602, 'Invalid params: every text part needs a non-empty text');
  const text = input.texts.join('\n\n');
  if (text.length > MAX_TEXT) throw new RpcError(-32602, `Invalid params: message parts may hold at most ${MAX_TEXT} characters together`);
  const agent = endpoint.agent ?? input.agent;
  const row = await startTask(ctx, req.auth.tenantId, { requestId: req.id }, { text, ...(input.contextId ? { contextId: input.contextId } : {}), ...(agent ? { agent } : {}) });
  await input.afterStart?.(row);
  return input.blocking ? current(endpoint, row, BLOCKING_WAIT_MS) : row;
}

/** A task of the caller's tenant — of this endpoint's agent, on /a2a/agents/:id — or -32001; moved on to its answer unless `refresh` is false. */
export async function getTask(endpoint: Endpoint, id: string, refresh = true): Promise<TaskRow> {
  const { req, ctx, agent } = endpoint;
  const row = await new TaskStore(ctx.db).get(req.auth.tenantId, id);
  const owner = row && agent !== undefined ? (await resolveAgent(ctx.host, { requestId: req.id }, agent)).id : row?.agent_id;
  if (!row || row.agent_id !== owner) throw new RpcError(-32001, `Task not found: ${id}`);
  return refresh ? current(endpoint, row) : row;
}

/** Cancels a submitted or working task (its session is stopped); one that ended is -32002. */
export async function cancel(endpoint: Endpoint, id: string): Promise<TaskRow> {
  const row = await getTask(endpoint, id, false);
  if (FINAL_STATES.has(row.state)) throw new RpcError(-32002, `Task not cancelable: task ${row.id} is ${row.state}`);
  return cancelTask(endpoint.ctx, endpoint.req.auth.tenantId, { requestId: endpoint.req.id }, row);
}

const current = ({ req, ctx }: Endpoint, row: TaskRow, waitMs?: number) => currentTask(ctx, req.auth.tenantId, { requestId: req.id }, row, waitMs);
