// The A2A extension: A2A tasks served for this server's agents (/a2a/tasks), remote servers registered
// per tenant (/api/a2a/remotes), and the tools that reach other servers (discover, invoke, directory).
import { runExtension } from '../../sdk/extension.js';
import type { A2AState } from './context.js';
import { migrations } from './migrations.js';
import { PushWatcher } from './push-delivery.js';
import { routes } from './routes.js';
import { tools } from './tools.js';

runExtension<A2AState>({
  migrations,
  setup(ctx) {
    const push = new PushWatcher(ctx);
    // Once ready has gone: tasks a previous run left with updates to push are watched again.
    setImmediate(() => push.resume().catch((err: Error) => ctx.host.log('warn', `push notifications: resuming failed: ${err.message}`)));
    return { push };
  },
  routes,
  tools,
  shutdown: (_ctx, state) => state.push.stop(),
});
