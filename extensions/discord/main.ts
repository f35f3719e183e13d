// The Discord bridge (docs/bridges.md): HTTP interactions, its configuration, the voice cache's figures,
// the chat tools, and the internal routes of the bridge contract.
import { runExtension } from '../../sdk/extension.js';
import { DiscordBridge } from './bridge.js';
import { configRoutes } from './config.js';
import { contractRoutes } from './contract.js';
import { interactionRoutes } from './interactions.js';
import { migrations } from './migrations.js';
import { tools } from './tools.js';

let bridge: DiscordBridge | undefined;
const current = () => bridge!;

runExtension({
  migrations,
  async setup(ctx) {
    bridge = await DiscordBridge.create(ctx);
    bridge.outbox.start();
  },
  shutdown() {
    bridge?.outbox.stop();
  },
  routes: { ...configRoutes(current), ...interactionRoutes(current), ...contractRoutes(current) },
  tools: tools(current),
});
