// The vcshost extension: the code host's REST API through @octokit/rest, the tenant's repository
// blocklist and user allowlist, the code-host tools for agents, inbound code-host webhooks and
// outbound webhook registrations with signed, retried deliveries, and mention polling.
import { runExtension } from '../../sdk/extension.js';
import { WORK_TASKS_EVENTS, type WorkTaskOutcome } from '../work-tasks/contract.js';
import { channelRoutes } from './channel.js';
import { migrations } from './migrations.js';
import { pollingRoutes } from './polling-routes.js';
import { routes } from './routes.js';
import { startState, stopState } from './state.js';
import { tools } from './tools.js';
import { webhookRoutes } from './webhook-routes.js';

runExtension({
  migrations,
  routes: { ...routes, ...webhookRoutes, ...pollingRoutes, ...channelRoutes },
  tools,
  setup: startState,
  shutdown: stopState,
  async event({ topic, payload, tenantId }, _ctx, state) {
    // A work task ended: registrations that want work_task.<status> (of its repository) hear of it.
    if (topic !== WORK_TASKS_EVENTS.outcome || !tenantId) return;
    const outcome = payload as Partial<WorkTaskOutcome>;
    await state.deliverer.publish(tenantId, `work_task.${String(outcome.status)}`, outcome.repo ?? null, payload);
  },
});
