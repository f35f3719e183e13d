// The projects extension: its own database, its REST routes, its MCP tools, its WebSocket stream.
import { runExtension } from '../../sdk/extension.js';
import { PlanCache } from '../plans/contract.js';
import { migrations } from './migrations.js';
import { routes, type ProjectsState } from './routes.js';
import { tools } from './tools.js';

runExtension<ProjectsState>({
  migrations,
  routes,
  tools,
  // The plans a create checks its limit against, kept until plans announces a change (plugin.toml's broadcast).
  setup: () => ({ plans: new PlanCache() }),
  event: (event, _ctx, state) => state.plans.heard(event.topic),
});
