// The agents extension: agent records and their wallets, personas, skill bundles, agent cards and
// the store of agent-to-agent messages (sent by the messaging extension); MCP svc_list_agents; the
// agent.{id} stream.
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { tools } from './tools.js';

runExtension({ migrations, routes, tools });
