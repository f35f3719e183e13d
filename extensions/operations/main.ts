// The operations extension: the performance time series (sampled from the kernel's metrics), its API and
// the agent tools svc_check_health_trends and svc_restart_server, and the self-test's end-to-end checks.
import type { ExtensionContext } from '../../sdk/extension.js';
import { runExtension } from '../../sdk/extension.js';
import { Collector, collectorSettings } from './collector.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { selfChecks } from './selftest.js';
import { tools } from './tools.js';

// The collector is the running state: what setup returns, handed to every route after ctx.
runExtension<Collector>({
  migrations,
  setup(ctx: ExtensionContext) {
    const collector = new Collector(ctx, collectorSettings(ctx));
    collector.start();
    return collector;
  },
  routes,
  tools,
  selfChecks: (request, ctx) => selfChecks(request, ctx.host),
  shutdown(_ctx, collector) {
    collector.stop();
  },
});
