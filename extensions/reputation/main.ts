// The reputation extension: events per agent (recorded by hand and from outcomes on the bus), scores
// with decay, identities with a verification tier, and attestations signed with the server's key.
import { runExtension } from '../../sdk/extension.js';
import { onEvent } from './bus.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { tools } from './tools.js';

runExtension({ migrations, routes, tools, event: onEvent });
