// The agents extension: agent records and their wallets, personas, skill bundles, agent cards and
// agent-to-agent messages; MCP svc_list_agents; WebSocket agent_invoke; the agent.{id} stream.
import { runExtension } from '../_shared/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { tools } from './tools.js';
import { ws } from './ws.js';

runExtension({ migrations, routes, tools, ws });
