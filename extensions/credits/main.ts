// The credits extension: wallet ledgers, reservations around agent turns, daily spending and caps,
// the per-tenant credit configuration; MCP credit tools; WebSocket agent_reward; agent_balance events.
import { runExtension } from '../../sdk/extension.js';
import { onAgentEvent } from './events.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { startCredits, stopCredits } from './state.js';
import { tools } from './tools.js';
import { ws } from './ws.js';

runExtension({ migrations, routes, tools, ws, event: onAgentEvent, setup: startCredits, shutdown: stopCredits });
