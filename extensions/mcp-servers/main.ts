// The mcp-servers extension: configs of external MCP servers per tenant (secrets sealed), their test,
// and — for the sessions extension — the tools of the servers an agent may use, and calls to them.
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { closeState, openState } from './state.js';

runExtension({ migrations, routes, setup: openState, shutdown: closeState });
