// The Discord bridge (docs/bridges.md): HTTP interactions, ordinary messages through the Gateway, its
// configuration, the voice cache's figures, the chat tools, and the internal routes of the bridge
// contract. Its running state is the DiscordBridge setup returns.
import { runExtension } from '../../sdk/extension.js';
import { DiscordBridge } from './bridge.js';
import { configRoutes } from './config.js';
import { contractRoutes } from './contract.js';
import { interactionRoutes } from './interactions.js';
import { migrations } from './migrations.js';
import { tools } from './tools.js';

runExtension<DiscordBridge>({
  migrations,
  setup: (ctx) => DiscordBridge.start(ctx),
  shutdown: (_ctx, bridge) => bridge.stop(),
  routes: { ...configRoutes, ...interactionRoutes, ...contractRoutes },
  tools,
});
