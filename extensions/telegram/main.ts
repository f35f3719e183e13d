// The Telegram bridge: a bot per tenant (long polling or a webhook), chats as agent sessions, buttons for
// approvals and owner questions, and the bridge contract's deliver and conversation routes.
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { startState, stopState } from './state.js';

runExtension({ migrations, routes, setup: startState, shutdown: stopState });
