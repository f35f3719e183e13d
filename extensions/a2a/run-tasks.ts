// Running A2A tasks on this server's agents. A task starts a session (source "agent"), or — when an
// earlier task of the same context went to the same agent — continues that task's session (resumed, or
// replaced by one carrying the conversation, if it ended): a context is one conversation. A task's
// state is read from the session's stored events when someone asks for it, so nothing waits in memory
// and a task survives a restart of this extension or of the server.
import { randomUUID } from 'node:crypto';
import { RoostError, conflict, validationError } from '../../protocol/errors.js';
import { agentsClient, agentsError, resolveAgent, type AgentRef } from '../agents/contract.js';
import { continueConversation, deliverPrompt, waitForReply } from '../sessions/contract-reply.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { upstreamError, type CallAs } from '../../sdk/host-client.js';
import { sessionsClient } from '../sessions/contract.js';
import { FINAL_STATES, TaskStore, type TaskRow } from './tasks.js';

/** How long one GET waits (by default) for a working task's session to finish its answer before answering "working". */
const REFRESH_BUDGET_MS = 1_000;

export interface TaskRequest {
  id?: string;
  contextId?: string;
  agent?: string;
  text: string;
}

export async function startTask(ctx: ExtensionContext, tenantId: string, as: CallAs, request: TaskRequest): Promise<TaskRow> {
  const agent = request.agent ? await resolveAgent(ctx.host, as, request.agent) : await onlyAgent(ctx, as);
  const tasks = new TaskStore(ctx.db);
  const id = request.id ?? randomUUID();
  if (await tasks.get(tenantId, id)) throw conflict(`task ${id} exists; a new task needs a new id`);
  const earlier = request.contextId ? await tasks.latestInContext(tenantId, request.contextId, agent.id) : undefined;
  await tasks.create({ tenant_id: tenantId, id, context_id: request.contextId ?? randomUUID(), agent_id: agent.id, input: request.text });
  ctx.host.audit('a2a.task.send', `a2a-task:${id}`, { agentId: agent.id, ...(earlier ? { continues: earlier.id } : {}) });
  try {
    const session = { source: 'agent', name: `A2A task ${id}`.slice(0, 200) };
    const delivery = earlier?.session_id
      ? await continueConversation(ctx.host, as, { agentId: agent.id, sessionId: earlier.session_id, prompt: request.text, session })
      : await deliverPrompt(ctx.host, as, { agentId: agent.id, prompt: request.text, session });
    return await tasks.update(tenantId, id, { state: 'working', session_id: delivery.sessionId, after_seq: delivery.after });
  } catch (err) {
    return tasks.update(tenantId, id, { state: 'failed', error: err instanceof RoostError ? err.message : 'the task could not be started' });
  }
}

/** The task, moved on to completed or failed when its session has answered (within `waitMs`) or stopped. */
export async function currentTask(ctx: ExtensionContext, tenantId: string, as: CallAs, row: TaskRow, waitMs = REFRESH_BUDGET_MS): Promise<TaskRow> {
  if (FINAL_STATES.has(row.state) || !row.session_id) return row;
  const tasks = new TaskStore(ctx.db);
  try {
    const answer = await waitForReply(ctx.host, as, row.session_id, row.after_seq, { timeoutMs: Math.max(waitMs, 1) });
    return await tasks.update(tenantId, row.id, { state: 'completed', result: answer.text });
  } catch (err) {
    if (err instanceof RoostError && err.code === 'TIMEOUT') return row;
    return tasks.update(tenantId, row.id, { state: 'failed', error: err instanceof RoostError ? err.message : 'the task failed' });
  }
}

export async function cancelTask(ctx: ExtensionContext, tenantId: string, as: CallAs, row: TaskRow): Promise<TaskRow> {
  if (FINAL_STATES.has(row.state)) throw conflict(`task ${row.id} is ${row.state}; only a submitted or working task can be canceled`);
  if (row.session_id) {
    const stopped = await sessionsClient(ctx.host, as).stop(row.session_id);
    if (stopped.status >= 400 && stopped.status !== 409) throw upstreamError(stopped, `stopping the session of task ${row.id}`, 'sessions');
  }
  ctx.host.audit('a2a.task.cancel', `a2a-task:${row.id}`, {});
  return new TaskStore(ctx.db).update(tenantId, row.id, { state: 'canceled' });
}

/** A task that names no agent goes to the tenant's only agent; with several, the client must choose. */
async function onlyAgent(ctx: ExtensionContext, as: CallAs): Promise<AgentRef> {
  const reply = await agentsClient(ctx.host, as).list({ limit: 2 });
  if (reply.status !== 200 || !reply.body) throw agentsError(reply, 'finding the agent for the task');
  const agents = reply.body.agents;
  if (agents.length !== 1) throw validationError(agents.length === 0 ? 'this tenant has no agents to run the task' : 'this tenant has several agents: name one in "agent" (or metadata.agent), by name or id');
  return { id: agents[0]!.id, name: agents[0]!.name };
}
