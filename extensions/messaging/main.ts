// The messaging extension: agent-to-agent messages delivered to the recipient's session, replies awaited,
// threads kept, loops refused. Messages themselves are stored by the agents extension.
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { tools } from './tools.js';
import { ws } from './ws.js';

runExtension({ migrations, routes, tools, ws });
