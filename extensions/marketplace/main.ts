// The marketplace extension: listings, search, uses with escrow through the credits extension, reviews,
// and federation with other Roost servers (a signed feed of public listings, pulled with ETags).
import { runExtension } from '../../sdk/extension.js';
import { onEvent } from './events.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { startSettler, stopSettler } from './settler.js';

runExtension({ migrations, routes, event: onEvent, setup: startSettler, shutdown: stopSettler });
