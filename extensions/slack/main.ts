// The Slack bridge (docs/bridges.md): the Events API and interactivity endpoints, its configuration,
// and the internal routes of the bridge contract.
import { runExtension } from '../../sdk/extension.js';
import { SlackBridge } from './bridge.js';
import { configRoutes } from './config.js';
import { contractRoutes } from './contract.js';
import { eventRoutes } from './events.js';
import { interactionRoutes } from './interactions.js';
import { migrations } from './migrations.js';

// The bridge is the running state: what setup returns, handed to every route after ctx.
runExtension<SlackBridge>({
  migrations,
  setup(ctx) {
    const bridge = new SlackBridge(ctx);
    bridge.outbox.start();
    return bridge;
  },
  shutdown(_ctx, bridge) {
    bridge.outbox.stop();
  },
  routes: { ...configRoutes, ...eventRoutes, ...interactionRoutes, ...contractRoutes },
});
