// Every route of the schedules extension, keyed as plugin.toml declares them.
import type { RouteHandler } from '../../sdk/extension.js';
import type { Scheduler } from './scheduler.js';
import { executionRoutes } from './routes-executions.js';
import { scheduleRoutes } from './routes-schedules.js';
import { schedulerRoutes } from './routes-scheduler.js';
import { usageRoutes } from './routes-usage.js';

export const routes: Record<string, RouteHandler<Scheduler>> = { ...scheduleRoutes, ...executionRoutes, ...schedulerRoutes, ...usageRoutes };
