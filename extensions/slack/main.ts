// The Slack bridge (docs/bridges.md): the Events API and interactivity endpoints, its configuration,
// and the internal routes of the bridge contract.
import { runExtension } from '../../sdk/extension.js';
import { SlackBridge } from './bridge.js';
import { configRoutes } from './config.js';
import { contractRoutes } from './contract.js';
import { eventRoutes } from './events.js';
import { interactionRoutes } from './interactions.js';
import { migrations } from './migrations.js';

let bridge: SlackBridge | undefined;
const current = () => bridge!;

runExtension({
  migrations,
  setup(ctx) {
    bridge = new SlackBridge(ctx);
    bridge.outbox.start();
  },
  shutdown() {
    bridge?.outbox.stop();
  },
  routes: { ...configRoutes(current), ...eventRoutes(current), ...interactionRoutes(current), ...contractRoutes(current) },
});
