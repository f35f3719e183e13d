// The councils extension: councils of agents, their launches run stage by stage, resumed after a restart.
import { runExtension } from '../../sdk/extension.js';
import { migrations } from './migrations.js';
import { routes } from './routes.js';
import { launches } from './runner.js';
import { tools } from './tools.js';

runExtension({
  migrations,
  routes,
  tools,
  setup(ctx) {
    // After `ready`: resuming calls other extensions, which may still be starting themselves.
    setImmediate(() => void launches(ctx).resumeAll().catch((err: Error) => ctx.host.log('error', `resuming council launches failed: ${err.message}`)));
  },
  shutdown: (ctx) => launches(ctx).shutdown(),
});
