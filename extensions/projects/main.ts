// The projects extension: its own database, its REST routes, its MCP tools, its WebSocket stream.
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { tools } from './tools.js';

runExtension({ migrations, routes, tools });
