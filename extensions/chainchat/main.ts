// Chainchat: on-chain messaging on Algorand. Messages travel end-to-end encrypted in transaction notes,
// with pre-shared-key contacts and an allowlist; each participant talks to an agent in a keep-alive
// session. Memories and agent-to-agent messages can be sent on-chain; the senders' external wallets
// (their credits and messages) are read through its contract.
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { allowlistRoutes } from './routes-allowlist.js';
import { bridgeRoutes } from './routes-bridge.js';
import { pskRoutes } from './routes-psk.js';
import { walletRoutes } from './routes-wallets.js';
import { startState, stopState, type State } from './state.js';
import { tools } from './tools.js';

runExtension<State>({
  migrations,
  routes: { ...routes, ...pskRoutes, ...allowlistRoutes, ...bridgeRoutes, ...walletRoutes },
  tools,
  setup: startState,
  shutdown: stopState,
});
