// /api/usage: what schedules ran and spent, with anomaly flags.
import type { RouteHandler } from '../../sdk/extension.js';
import { ok, queryString } from '../../sdk/http.js';
import { mustGet } from './service.js';
import type { Scheduler } from './scheduler.js';
import { perDay, perSchedule, runs, totals, windowDays } from './usage.js';

export const usageRoutes: Record<string, RouteHandler<Scheduler>> = {
  async 'GET /api/usage/summary'(req, ctx, scheduler) {
    const days = windowDays(req.query);
    const list = await runs(ctx, req.auth.tenantId, scheduler.clock.now(), days);
    return ok({ days, totals: totals(list), schedules: perSchedule(list) });
  },

  async 'GET /api/usage/daily'(req, ctx, scheduler) {
    const days = windowDays(req.query);
    const scheduleId = queryString(req.query, 'scheduleId');
    if (scheduleId) await mustGet(ctx, req.auth.tenantId, scheduleId);
    return ok({ days, daily: perDay(await runs(ctx, req.auth.tenantId, scheduler.clock.now(), days, scheduleId)) });
  },

  async 'GET /api/usage/anomalies'(req, ctx, scheduler) {
    const days = windowDays(req.query);
    const list = await runs(ctx, req.auth.tenantId, scheduler.clock.now(), days);
    const anomalies = list.filter((r) => r.flags.length > 0).reverse();
    return ok({ days, anomalies });
  },

  async 'GET /api/usage/schedule/:id'(req, ctx, scheduler) {
    const schedule = await mustGet(ctx, req.auth.tenantId, req.params.id!);
    const days = windowDays(req.query);
    const list = await runs(ctx, req.auth.tenantId, scheduler.clock.now(), days, schedule.id);
    return ok({ scheduleId: schedule.id, name: schedule.name, days, totals: totals(list), anomalous: (list[list.length - 1]?.flags.length ?? 0) > 0, daily: perDay(list), runs: list.slice(-100).reverse() });
  },
};
