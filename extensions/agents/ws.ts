// WebSocket client messages: agent_invoke {fromAgentId, toAgentId, content}. The answer goes back to the
// sending client only: `agent_invoked`, or `error` (sent by the extension frame when this throws).
import { validate } from '../../protocol/validate.js';
import type { WsHandler } from '../_shared/extension.js';
import { schema } from './context.js';
import { invokeAgent } from './invoke.js';

export const ws: Record<string, WsHandler> = {
  async agent_invoke(message, client, ctx) {
    const m = validate<{ fromAgentId: string; toAgentId: string; content: string }>(schema(ctx, 'ws-agent-invoke.json'), message, 'message');
    const tenantId = client.auth.tenantId;
    const result = await invokeAgent(ctx, tenantId, { tenantId }, { toAgentId: m.toAgentId, fromAgentId: m.fromAgentId, content: m.content });
    ctx.host.wsSend(client.id, { type: 'agent_invoked', fromAgentId: m.fromAgentId, toAgentId: m.toAgentId, messageId: result.message.id, sessionId: result.sessionId });
  },
};
