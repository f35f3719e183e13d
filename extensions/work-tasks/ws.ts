// WebSocket `create_work_task`: the task is created as the client (the kernel already refused viewers),
// and its updates (`work_task_update`) go to that client as they happen.
import { join } from 'node:path';
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { WsHandler } from '../../sdk/extension.js';
import { createTask } from './create.js';
import type { Engine } from './engine.js';
import { toTask } from './store.js';
import { ProjectsClient } from '../projects/contract.js';

export const ws: Record<string, WsHandler<Engine>> = {
  async create_work_task(message, client, ctx, engine) {
    const requestId = typeof message.requestId === 'string' ? message.requestId : undefined;
    try {
      const input = validate<{ agentId: string; description: string; projectId?: string }>(join(ctx.init.plugin.dir, 'schemas', 'ws-create.json'), message, 'message');
      const as = { tenantId: client.auth.tenantId };
      const projectId = input.projectId ?? (await onlyProject(engine, as));
      const row = await createTask(engine, as, client.auth.tenantId, { agentId: input.agentId, description: input.description, projectId }, client.auth.actor);
      engine.watch(row.id, client.id);
      ctx.host.wsSend(client.id, { type: 'work_task_update', workTaskId: row.id, status: row.status, task: toTask(row), ...(requestId ? { requestId } : {}) });
    } catch (err) {
      const error = toRoostError(err);
      ctx.host.wsSend(client.id, { type: 'error', message: error.message, code: error.code, ...(requestId ? { requestId } : {}) });
    }
  },
};

/** Without a projectId the tenant's only project is meant; with several, the client must name one. */
async function onlyProject(engine: Engine, as: { tenantId: string }): Promise<string> {
  const reply = await new ProjectsClient(engine.ctx.host).list({ limit: 2 }, as);
  const projects = reply.body?.projects ?? [];
  if (projects.length !== 1) throw new RoostError('VALIDATION_ERROR', `message.projectId is required (this tenant has ${projects.length === 0 ? 'no project' : 'several projects'})`);
  return projects[0]!.id;
}
