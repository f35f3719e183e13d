// The operations extension: the performance time series (sampled from the kernel's metrics), its API and
// the agent tools svc_check_health_trends and svc_restart_server, and the self-test's end-to-end checks.
import type { ExtensionContext } from '../../sdk/extension.js';
import { runExtension } from '../../sdk/extension.js';
import { Collector, collectorSettings } from './collector.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { selfChecks } from './selftest.js';
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
  selfChecks: (request, ctx) => selfChecks(request, ctx.host),
  shutdown() {
    collector?.stop();
  },
});
