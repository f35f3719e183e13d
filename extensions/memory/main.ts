// The memory extension: an agent's encrypted memories and observations, the tenant's shared library,
// and the memory context of a new session's system prompt. A deleted agent's memories are erased.
import { runExtension } from '../../sdk/extension.js';
import { onAgentEvent } from './events.js';
import { Keyring } from './keyring.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { tools } from './tools.js';

runExtension({ migrations, routes, tools, event: onAgentEvent, setup: (ctx) => new Keyring(ctx) });
