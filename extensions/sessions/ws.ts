// WebSocket client messages this extension declared: send_message, approval_response, chat_send.
// A handler that throws makes the frame answer the client with an `error` message.
import { join } from 'node:path';
import { notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, WsHandler } from '../../sdk/extension.js';
import type { Sessions } from './state.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);

export const wsHandlers: Record<string, WsHandler<Sessions>> = {
  async send_message(message, client, ctx, { manager }) {
    const m = validate<{ sessionId: string; content: string }>(schema(ctx, 'ws-send-message.json'), message, 'send_message');
    await manager.send(client.auth.tenantId, m.sessionId, m.content);
  },

  async approval_response(message, client, ctx, { manager }) {
    const m = validate<{ requestId: string; behavior: 'allow' | 'deny' }>(schema(ctx, 'ws-approval-response.json'), message, 'approval_response');
    if (!(await manager.respondApproval(client.auth.tenantId, m.requestId, m.behavior, client.auth.actor))) {
      throw notFound(`approval request ${m.requestId} (it may have been answered or timed out)`);
    }
  },

  async chat_send(message, client, ctx, { chat }) {
    const m = validate<{ agentId: string; content: string }>(schema(ctx, 'ws-chat-send.json'), message, 'chat_send');
    await chat.send({ id: client.id, tenantId: client.auth.tenantId }, m.agentId, m.content);
  },
};
