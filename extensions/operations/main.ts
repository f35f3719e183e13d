// The operations extension: the performance time series (sampled from the kernel's metrics), its API and
// the agent tools svc_check_health_trends and svc_restart_server.
import type { ExtensionContext } from '../_shared/extension.js';
import { runExtension } from '../_shared/extension.js';
import { Collector, collectorSettings } from './collector.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { tools } from './tools.js';

let collector: Collector | undefined;

runExtension({
  migrations,
  setup(ctx: ExtensionContext) {
    collector = new Collector(ctx, collectorSettings(ctx));
    collector.start();
  },
  routes: routes(() => collector!),
  tools,
  shutdown() {
    collector?.stop();
  },
});
