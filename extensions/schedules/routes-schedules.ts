// /api/schedules: CRUD, bulk pause/resume/delete, trigger, and a schedule's executions.
import { RoostError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, noContent, ok, page, queryString } from '../../sdk/http.js';
import { announceSchedule } from './announce.js';
import { schemaPath, scheduleSchemas } from './schemas.js';
import { createSchedule, deleteSchedule, mustGet, pausedFields, stores, triggerSchedule, updateSchedule, type ScheduleInput } from './service.js';
import type { Scheduler } from './scheduler.js';
import { ScheduleStore, type Schedule } from './store.js';

type BulkAction = 'pause' | 'resume' | 'delete';

export const scheduleRoutes: Record<string, RouteHandler<Scheduler>> = {
  async 'GET /api/schedules'(req, ctx) {
    return ok(await stores(ctx).schedules.list(req.auth.tenantId, { ...page(req.query), agentId: queryString(req.query, 'agentId') }));
  },

  async 'POST /api/schedules'(req, ctx, scheduler) {
    return created(await createSchedule(ctx, scheduler, req.auth, validate<ScheduleInput>(scheduleSchemas(ctx).create, req.body)));
  },

  async 'GET /api/schedules/:id'(req, ctx) {
    return ok(await mustGet(ctx, req.auth.tenantId, req.params.id!));
  },

  async 'PUT /api/schedules/:id'(req, ctx, scheduler) {
    return ok(await updateSchedule(ctx, scheduler, req.auth, req.params.id!, validate<ScheduleInput>(scheduleSchemas(ctx).update, req.body)));
  },

  async 'DELETE /api/schedules/:id'(req, ctx, scheduler) {
    await deleteSchedule(ctx, scheduler, req.auth.tenantId, req.params.id!);
    return noContent();
  },

  /** All or nothing, in one transaction: one id that is not the tenant's fails them all, naming it. */
  async 'POST /api/schedules/bulk'(req, ctx, scheduler) {
    const { action, ids } = validate<{ action: BulkAction; ids: string[] }>(schemaPath(ctx, 'bulk.json'), req.body);
    const tenantId = req.auth.tenantId;
    const now = scheduler.clock.now();
    const done = await ctx.db.transaction(async (trx) => {
      const store = new ScheduleStore(trx, ctx.sql);
      const found = await Promise.all(ids.map((id) => store.get(tenantId, id, trx)));
      const missing = ids.filter((_, i) => !found[i]);
      if (missing.length > 0) {
        const results = ids.map((id) => (missing.includes(id) ? { id, ok: false, error: `schedule ${id} not found` } : { id, ok: false, error: 'not applied: another id of the request failed' }));
        throw new RoostError('NOT_FOUND', `bulk ${action} applied to none: ${missing.length === 1 ? 'schedule' : 'schedules'} ${missing.join(', ')} not found`, { details: { results } });
      }
      const out: Array<{ schedule: Schedule; after: Schedule | undefined }> = [];
      for (const schedule of found as Schedule[]) {
        if (action === 'delete') {
          await store.remove(tenantId, schedule.id, trx);
          out.push({ schedule, after: undefined });
        } else {
          out.push({ schedule, after: await store.update(tenantId, schedule.id, pausedFields(schedule, action === 'pause', req.auth.actor, scheduler.clock.now()), now, { db: trx, resetFailures: action === 'resume' }) });
        }
      }
      return out;
    });
    for (const { schedule, after } of done) announceSchedule(ctx.host, after ?? schedule, action === 'delete' ? 'deleted' : action === 'pause' ? 'paused' : 'resumed');
    await scheduler.syncWake();
    return ok({ action, results: done.map(({ schedule, after }) => ({ id: schedule.id, ok: true, status: after ? after.status : 'deleted' })) });
  },

  async 'POST /api/schedules/:id/trigger'(req, ctx, scheduler) {
    return created(await triggerSchedule(ctx, scheduler, req.auth, req.params.id!));
  },

  async 'GET /api/schedules/:id/executions'(req, ctx) {
    const schedule = await mustGet(ctx, req.auth.tenantId, req.params.id!);
    return ok(await stores(ctx).executions.list(req.auth.tenantId, { ...page(req.query), scheduleId: schedule.id, status: queryString(req.query, 'status') }));
  },
};
