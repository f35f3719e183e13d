// The councils extension: councils of agents, their launches run stage by stage, resumed after a restart.
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { LaunchRunner } from './runner.js';
import { tools } from './tools.js';

// The launch runner is the running state: what setup returns, handed to every route and tool after ctx.
runExtension<LaunchRunner>({
  migrations,
  routes,
  tools,
  setup(ctx) {
    const runner = new LaunchRunner(ctx);
    // After `ready`: resuming calls other extensions, which may still be starting themselves.
    setImmediate(() => void runner.resumeAll().catch((err: Error) => ctx.host.log('error', `resuming council launches failed: ${err.message}`)));
    return runner;
  },
  shutdown: (_ctx, runner) => runner.shutdown(),
});
