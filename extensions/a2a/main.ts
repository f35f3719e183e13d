// The A2A extension: A2A tasks served for this server's agents (/a2a/tasks), remote servers registered
// per tenant (/api/a2a/remotes), and the tools that reach other servers (discover, invoke, directory).
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { tools } from './tools.js';

runExtension({ migrations, routes, tools });
