// The sessions extension: agent sessions, each driven by an agent runner child process; their REST API,
// their WebSocket stream (session.{id}), approvals and the escalation queue, chat, svc_extend_timeout.
import { runExtension } from '../../sdk/extension.js';
import { ChatBridge } from './chat.js';
import { SessionManager } from './manager.js';
import { migrations } from './migrations.js';
import { OPERATIONAL_MODES, type OperationalMode } from './policy.js';
import { COMMAND_TOPIC, RESULT_TOPIC } from './remote.js';
import { sessionRoutes } from './routes.js';
import type { Sessions } from './state.js';
import { sessionTools } from './tools.js';
import { wsHandlers } from './ws.js';

runExtension<Sessions>({
  migrations,
  setup(ctx) {
    const manager = new SessionManager(ctx);
    // After `ready`: restoring calls other extensions, which may still be starting themselves.
    setImmediate(() => {
      manager.restoreAll().catch((err: Error) => ctx.host.log('error', `restoring sessions failed: ${err.message}`));
    });
    return { manager, chat: new ChatBridge(manager, ctx.host) };
  },
  routes: sessionRoutes,
  tools: sessionTools,
  ws: wsHandlers,
  async event({ topic, payload, tenantId }, _ctx, { manager }) {
    if (topic === COMMAND_TOPIC || topic === RESULT_TOPIC) return manager.remote.receive(topic, payload, tenantId);
    manager.plans.heard(topic);
    const mode = (payload as { mode?: unknown } | null)?.mode;
    if (topic === 'system.operational_mode' && OPERATIONAL_MODES.includes(mode as OperationalMode)) manager.broker.setMode(mode as OperationalMode);
  },
  async shutdown(_ctx, { manager }) {
    await manager.shutdown();
  },
});
