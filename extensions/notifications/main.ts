// The notifications extension: channels, owner notifications with retried deliveries, owner questions.
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { startState, stopState } from './state.js';
import { tools } from './tools.js';

runExtension({ migrations, routes, tools, setup: startState, shutdown: stopState });
