// The work-task REST API.
import { join } from 'node:path';
import { notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { isUniqueViolation } from '../../sdk/db.js';
import { created, ok, page, queryString } from '../../sdk/http.js';
import { WORK_TASKS_ROUTES } from './contract.js';
import { createTask, type CreateInput } from './create.js';
import type { Engine } from './engine.js';
import { toTask, type TaskRow } from './store.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);

async function mustGet(req: RouteRequest, engine: Engine): Promise<TaskRow> {
  const row = await engine.store.get(req.auth.tenantId, req.params.id!);
  if (!row) throw notFound(`work task ${req.params.id}`);
  return row;
}

export const routes: Record<string, RouteHandler<Engine>> = {
  async [WORK_TASKS_ROUTES.list](req, _ctx, engine) {
    const filter = { agentId: queryString(req.query, 'agentId'), status: queryString(req.query, 'status') };
    return ok(await engine.store.list(req.auth.tenantId, filter, page(req.query)));
  },

  /** With an `idempotencyKey` already used by the tenant: 200 and that task, nothing new created. */
  async [WORK_TASKS_ROUTES.create](req, ctx, engine) {
    const input = validate<CreateInput>(schema(ctx, 'work-task-create.json'), req.body);
    const earlier = async () => {
      const row = input.idempotencyKey ? await engine.store.byIdempotencyKey(req.auth.tenantId, input.idempotencyKey) : undefined;
      return row && ok(toTask(row));
    };
    const repeat = await earlier();
    if (repeat) return repeat;
    try {
      return created(toTask(await createTask(engine, { requestId: req.id }, req.auth.tenantId, input, req.auth.actor)));
    } catch (err) {
      // The same key asked twice at once: the other ask created the task.
      const other = isUniqueViolation(err) ? await earlier() : undefined;
      if (other) return other;
      throw err;
    }
  },

  async [WORK_TASKS_ROUTES.get](req, _ctx, engine) {
    const row = await mustGet(req, engine);
    return ok({ ...toTask(row), steps: await engine.store.steps(row.id) });
  },

  async [WORK_TASKS_ROUTES.cancel](req, _ctx, engine) {
    const row = await mustGet(req, engine);
    return ok(toTask(await engine.cancel(row)));
  },
};
