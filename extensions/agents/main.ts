// The agents extension: agent records and their wallets, personas, skill bundles, agent cards and
// the store of agent-to-agent messages (sent by the messaging extension); MCP svc_list_agents; the
// agent.{id} stream.
import { runExtension } from '../../sdk/extension.js';
import { PlanCache } from '../plans/contract.js';
import type { AgentsState } from './context.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { tools } from './tools.js';

runExtension<AgentsState>({
  migrations,
  routes,
  tools,
  // The plans a create checks its limit against, kept until plans announces a change (plugin.toml's broadcast).
  setup: () => ({ plans: new PlanCache() }),
  event: (event, _ctx, state) => state.plans.heard(event.topic),
});
