// MCP svc_send_message: an agent messages another agent of its tenant and waits for the reply. The
// sender is the agent the MCP token was minted for; the loop limits count per session of the token
// (per agent, within the window, for a token minted without a session).
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ToolHandler } from '../../sdk/extension.js';
import { schema } from './context.js';
import { sendAndWait } from './send.js';

export const tools: Record<string, ToolHandler> = {
  async svc_send_message(args, caller, ctx) {
    const input = validate<{ to_agent: string; message: string; thread?: string }>(schema(ctx, 'tool-send-message.json'), args, 'arguments');
    if (!caller.agentId) throw validationError('svc_send_message is sent by an agent: call it with an MCP token minted for an agent (a session\'s token)');
    const exchange = await sendAndWait(ctx, caller.tenantId, { tenantId: caller.tenantId }, {
      from: caller.agentId,
      to: input.to_agent,
      content: input.message,
      senderSessionId: caller.sessionId,
      caller: `agent:${caller.agentId}`,
      ...(input.thread ? { thread: input.thread } : {}),
    });
    return { content: [{ type: 'text', text: JSON.stringify(exchange) }] };
  },
};
