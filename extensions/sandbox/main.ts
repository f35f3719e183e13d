// The sandbox extension: per-agent sandbox policies, this instance's pool of prepared bubblewrap
// sandboxes, and which sessions run their tools sandboxed (applied by the sessions runner).
import { runExtension } from '../../sdk/extension.js';
import { integerSetting, stringSetting } from '../../sdk/settings.js';
import { detectBubblewrap } from './bubblewrap.js';
import { migrations } from './migrations.js';
import { SandboxPool } from './pool.js';
import { sandboxRoutes } from './routes.js';
import { SandboxStore } from './store.js';
import { SESSION_TOPICS } from '../sessions/contract.js';

// The pool is the running state: what setup returns, handed to every route after ctx.
runExtension<SandboxPool>({
  migrations,
  setup(ctx) {
    const tools = detectBubblewrap(stringSetting(ctx, 'BWRAP') ?? 'bwrap');
    if ('missing' in tools) ctx.host.log('warn', `sessions cannot be sandboxed: ${tools.missing}`);
    const pool = new SandboxPool(tools, integerSetting(ctx, 'POOL_SIZE', 2, 0, 64), (message) => ctx.host.log('warn', message));
    pool.refill();
    return pool;
  },
  routes: sandboxRoutes,
  async event({ topic, payload, tenantId }, ctx) {
    const session = (payload as { session?: { id?: unknown; statusReason?: unknown } } | null)?.session;
    if (topic !== SESSION_TOPICS.lifecycle || !tenantId || session?.statusReason !== 'deleted' || typeof session.id !== 'string') return;
    const store = new SandboxStore(ctx.db);
    const assignment = await store.assignment(tenantId, session.id);
    if (assignment && (await store.release(tenantId, session.id))) ctx.host.emit('sandbox.assignment', { sessionId: session.id, sandboxId: assignment.sandboxId, assigned: false }, tenantId);
  },
  shutdown(_ctx, pool) {
    pool.close();
  },
});
