// The agent tools of work tasks and code intelligence. Each acts for the calling session's tenant.
import { notFound, RoostError } from '../../protocol/errors.js';
import type { ToolMessage } from '../../protocol/messages.js';
import type { ToolHandler } from '../../sdk/extension.js';
import { codeSymbols, findReferences } from './code-index.js';
import { createTask, record } from './create.js';
import { repoTop } from './git.js';
import type { Engine } from './engine.js';
import { toTask } from './store.js';
import { projectPath } from '../projects/contract.js';
import { sessionsClient } from '../sessions/contract.js';

type Caller = ToolMessage['caller'];

const data = (value: object) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> });

/** The project the calling session works in; a work task's session answers with the task's project. */
async function sessionProject(engine: Engine, caller: Caller): Promise<{ projectId: string; workTaskId: string | null } | undefined> {
  if (!caller.sessionId) return undefined;
  const task = await engine.store.bySession(caller.tenantId, caller.sessionId);
  if (task) return { projectId: task.project_id, workTaskId: task.id };
  const reply = await sessionsClient(engine.ctx.host, { tenantId: caller.tenantId }).get(caller.sessionId);
  const projectId = reply.status === 200 ? reply.body?.projectId : undefined;
  return typeof projectId === 'string' ? { projectId, workTaskId: null } : undefined;
}

async function projectOf(engine: Engine, caller: Caller, given: unknown): Promise<Record<string, unknown>> {
  const projectId = typeof given === 'string' ? given : (await sessionProject(engine, caller))?.projectId;
  if (!projectId) throw new RoostError('VALIDATION_ERROR', 'project_id is required: the calling session has no project');
  return record(engine, { tenantId: caller.tenantId }, projectPath(projectId), `project ${projectId}`);
}

async function taskOf(engine: Engine, caller: Caller, given: unknown) {
  const id = typeof given === 'string' ? given : (await sessionProject(engine, caller))?.workTaskId;
  if (!id) throw new RoostError('VALIDATION_ERROR', 'task_id is required: the calling session is not a work task');
  const row = await engine.store.get(caller.tenantId, id);
  if (!row) throw notFound(`work task ${id}`);
  return row;
}

/** The source root of a project: its git repository's top when it is one, else its folder. */
async function sourceRoot(project: Record<string, unknown>): Promise<string> {
  const dir = String(project.workingDir);
  return repoTop(dir).catch(() => dir);
}

export const tools: Record<string, ToolHandler<Engine>> = {
  async svc_create_work_task(args, caller, _ctx, engine) {
    if (!caller.agentId) throw new RoostError('FORBIDDEN', 'svc_create_work_task is for agents: the caller has no agent identity');
    const project = await projectOf(engine, caller, args.project_id);
    const row = await createTask(engine, { tenantId: caller.tenantId }, caller.tenantId, { agentId: caller.agentId, description: String(args.description), projectId: String(project.id) }, `agent:${caller.agentId}`);
    return data(toTask(row));
  },

  async svc_check_work_status(args, caller, _ctx, engine) {
    const row = await taskOf(engine, caller, args.task_id);
    return data({ ...toTask(row), steps: (await engine.store.steps(row.id)).slice(-20) });
  },

  async svc_list_work_tasks(args, caller, _ctx, engine) {
    const filter = { agentId: args.agent_id as string | undefined, status: args.status as string | undefined };
    return data(await engine.store.list(caller.tenantId, filter, { limit: (args.limit as number | undefined) ?? 50, offset: 0 }));
  },

  async svc_work_task_escalate(args, caller, _ctx, engine) {
    const row = await taskOf(engine, caller, args.task_id);
    const reason = String(args.reason);
    if (!(await engine.finish(row, 'escalation_needed', { failure_reason: reason }, `escalated by ${caller.agentId ? `agent ${caller.agentId}` : 'a caller'}: ${reason}`))) {
      throw new RoostError('CONFLICT', `work task ${row.id} has ended already (${row.status})`);
    }
    return data(toTask((await engine.store.byId(row.id))!));
  },

  async svc_current_project(_args, caller, _ctx, engine) {
    const current = await sessionProject(engine, caller);
    if (!current) throw new RoostError('VALIDATION_ERROR', 'the calling session has no project');
    const project = await projectOf(engine, caller, current.projectId);
    return data({ id: project.id, name: project.name, workingDir: project.workingDir, description: project.description ?? '', workTaskId: current.workTaskId });
  },

  async svc_code_symbols(args, caller, _ctx, engine) {
    const project = await projectOf(engine, caller, args.project_id);
    const filter = { query: args.query as string | undefined, kind: args.kind as string | undefined, path: args.path as string | undefined };
    return data({ projectId: project.id, ...(await codeSymbols(await sourceRoot(project), filter, (args.limit as number | undefined) ?? 200)) });
  },

  async svc_find_references(args, caller, _ctx, engine) {
    const project = await projectOf(engine, caller, args.project_id);
    return data({ projectId: project.id, symbol: args.symbol, ...(await findReferences(await sourceRoot(project), String(args.symbol), (args.limit as number | undefined) ?? 200)) });
  },
};
