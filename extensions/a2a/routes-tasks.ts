// A2A tasks over REST (/a2a, outside /api): send a task to one of this server's agents and poll it.
// Authentication is the server's own bearer API key; tasks are scoped to the key's tenant.
import { notFound, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, ok } from '../../sdk/http.js';
import { schema } from './context.js';
import { cancelTask, currentTask, startTask } from './run-tasks.js';
import { TaskStore, toA2ATask } from './tasks.js';

const MAX_TEXT = 100_000;

interface SendBody {
  id?: string;
  contextId?: string;
  agent?: string;
  message: { parts: Array<{ text: string }> };
  metadata?: { agent?: string };
}

export const taskRoutes: Record<string, RouteHandler> = {
  async 'POST /a2a/tasks/send'(req, ctx) {
    const body = validate<SendBody>(schema(ctx, 'task-send.json'), req.body);
    const text = body.message.parts.map((p) => p.text).join('\n\n');
    if (text.length > MAX_TEXT) throw validationError(`message parts may hold at most ${MAX_TEXT} characters together`);
    const agent = body.agent ?? body.metadata?.agent;
    const row = await startTask(ctx, req.auth.tenantId, { requestId: req.id }, { text, ...(body.id ? { id: body.id } : {}), ...(body.contextId ? { contextId: body.contextId } : {}), ...(agent ? { agent } : {}) });
    return created(toA2ATask(row));
  },

  async 'GET /a2a/tasks/:id'(req, ctx) {
    const row = await new TaskStore(ctx.db).get(req.auth.tenantId, req.params.id!);
    if (!row) throw notFound(`task ${req.params.id}`);
    return ok(toA2ATask(await currentTask(ctx, req.auth.tenantId, { requestId: req.id }, row)));
  },

  async 'POST /a2a/tasks/:id/cancel'(req, ctx) {
    const row = await new TaskStore(ctx.db).get(req.auth.tenantId, req.params.id!);
    if (!row) throw notFound(`task ${req.params.id}`);
    return ok(toA2ATask(await cancelTask(ctx, req.auth.tenantId, { requestId: req.id }, row)));
  },
};
