// The sandbox extension: per-agent sandbox policies, this instance's pool of prepared bubblewrap
// sandboxes, and which sessions run their tools sandboxed (applied by the sessions runner).
import { RoostError } from '../../protocol/errors.js';
import { runExtension } from '../../sdk/extension.js';
import { integerSetting, stringSetting } from '../../sdk/settings.js';
import { detectBubblewrap } from './bubblewrap.js';
import { migrations } from './migrations.js';
import { SandboxPool } from './pool.js';
import { sandboxRoutes } from './routes.js';
import { SandboxStore } from './store.js';
import { SESSION_TOPICS } from '../sessions/contract.js';

let pool: SandboxPool | undefined;

runExtension({
  migrations,
  setup(ctx) {
    const tools = detectBubblewrap(stringSetting(ctx, 'BWRAP') ?? 'bwrap');
    if ('missing' in tools) ctx.host.log('warn', `sessions cannot be sandboxed: ${tools.missing}`);
    pool = new SandboxPool(tools, integerSetting(ctx, 'POOL_SIZE', 2, 0, 64), (message) => ctx.host.log('warn', message));
    pool.refill();
  },
  routes: sandboxRoutes({
    pool() {
      if (!pool) throw new RoostError('EXTENSION_UNAVAILABLE', 'the sandbox extension is still starting');
      return pool;
    },
  }),
  async event({ topic, payload, tenantId }, ctx) {
    const session = (payload as { session?: { id?: unknown; statusReason?: unknown } } | null)?.session;
    if (topic !== SESSION_TOPICS.lifecycle || !tenantId || session?.statusReason !== 'deleted' || typeof session.id !== 'string') return;
    const store = new SandboxStore(ctx.db);
    const assignment = await store.assignment(tenantId, session.id);
    if (assignment && (await store.release(tenantId, session.id))) ctx.host.emit('sandbox.assignment', { sessionId: session.id, sandboxId: assignment.sandboxId, assigned: false }, tenantId);
  },
  shutdown() {
    pool?.close();
  },
});
