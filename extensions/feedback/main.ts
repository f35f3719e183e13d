// The feedback extension: outcomes heard on the bus (sessions, approvals, councils, work tasks), their
// rates, the week against the one before, and a summary a prompt can carry (for agents that opted in).
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { record } from './record.js';
import { routes } from './routes.js';
import { settingsRoutes } from './settings.js';

runExtension({
  migrations,
  routes: { ...routes, ...settingsRoutes },
  async event(event, ctx) {
    if (!event.tenantId || typeof event.payload !== 'object' || event.payload === null) return;
    await record(ctx.db, event.tenantId, event.topic, event.payload as Record<string, unknown>);
  },
});
