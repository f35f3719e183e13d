// The codehost extension: the code host's REST API through @octokit/rest, the tenant's repository
// blocklist and user allowlist, and the code-host tools for agents.
import { runExtension } from '../_shared/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { tools } from './tools.js';

runExtension({ migrations, routes, tools });
