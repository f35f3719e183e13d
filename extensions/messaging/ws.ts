// WebSocket agent_invoke {fromAgentId, toAgentId, content, thread?}: the same delivery as POST
// /api/agents/:id/invoke. The answer goes to the sending client only: `agent_invoked`, or `error`
// (sent by the extension frame when this throws). A WebSocket message carries no request to act as, so
// the calls run as the client's tenant (role operator, actor extension:messaging).
import { validate } from '../../protocol/validate.js';
import type { WsHandler } from '../../sdk/extension.js';
import { schema } from './context.js';
import { deliver } from './deliver.js';

export const ws: Record<string, WsHandler> = {
  async agent_invoke(message, client, ctx) {
    const m = validate<{ fromAgentId: string; toAgentId: string; content: string; thread?: string }>(schema(ctx, 'ws-agent-invoke.json'), message, 'message');
    const tenantId = client.auth.tenantId;
    const sent = await deliver(ctx, tenantId, { tenantId }, { from: m.fromAgentId, to: m.toAgentId, content: m.content, caller: client.auth.actor, ...(m.thread ? { thread: m.thread } : {}) });
    ctx.host.wsSend(client.id, { type: 'agent_invoked', fromAgentId: sent.from!.id, toAgentId: sent.to.id, messageId: sent.message.id, sessionId: sent.sessionId, thread: sent.thread });
  },
};
