// The contract between the bridges and the notifications extension (docs/bridges.md, "The contract"):
// the bodies of the internal routes every bridge <b> serves.
//   POST /api/internal/bridges/<b>/deliver                           → {externalId}
//   GET  /api/internal/bridges/<b>/conversations                     → {conversations}
//   POST /api/internal/bridges/<b>/conversations/:conversationId/send → {externalId}
import { notFound } from '../../../protocol/errors.js';
import { validate } from '../../../protocol/validate.js';
import type { RouteHandler, RouteRequest } from '../extension.js';
import { ok } from '../http.js';
import { publicConversation, type BridgeStore, type Conversation } from './store.js';

export interface DeliverBody {
  kind: 'notification' | 'question' | 'question_closed';
  channel: { type: string; [field: string]: unknown };
  text: string;
  priority?: 'low' | 'normal' | 'high' | 'urgent';
  question?: { id: string; options: string[] };
  /** For question_closed: the externalId of the question's message. */
  reference?: string;
}

export const deliverSchema = (bridge: string) => ({
  type: 'object',
  required: ['kind', 'channel', 'text'],
  additionalProperties: false,
  properties: {
    kind: { enum: ['notification', 'question', 'question_closed'] },
    channel: { type: 'object', required: ['type'], properties: { type: { const: bridge } } },
    text: { type: 'string', minLength: 1, maxLength: 4000 },
    priority: { enum: ['low', 'normal', 'high', 'urgent'] },
    question: {
      type: 'object',
      required: ['id', 'options'],
      additionalProperties: false,
      properties: { id: { type: 'string', minLength: 1, maxLength: 100 }, options: { type: 'array', maxItems: 5, items: { type: 'string', minLength: 1, maxLength: 80 } } },
    },
    reference: { type: 'string', minLength: 1, maxLength: 200 },
  },
  allOf: [
    { if: { properties: { kind: { const: 'question' } } }, then: { required: ['question'] } },
    { if: { properties: { kind: { const: 'question_closed' } } }, then: { required: ['reference'] } },
  ],
});

export const sendSchema = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: { text: { type: 'string', minLength: 1, maxLength: 4000 } },
};

const MARK = { low: '', normal: '', high: '[high] ', urgent: '[URGENT] ' } as const;

export const withPriority = (body: DeliverBody): string => `${MARK[body.priority ?? 'normal']}${body.text}`;

/** The channel id a delivery names: `channelId` (or `channel`, `chatId`) in the channel's config. */
export function targetChannel(channel: DeliverBody['channel']): string | undefined {
  const id = channel.channelId ?? channel.channel ?? channel.chatId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** A token the delivered channel carries itself (`channel.botToken`), else undefined. */
export function channelToken(channel?: Record<string, unknown>): string | undefined {
  const own = channel?.botToken;
  return typeof own === 'string' && own !== '' ? own : undefined;
}

/** The contract's two conversation routes; `send` posts the text in the conversation and answers its externalId. */
export function conversationRoutes(bridge: string, store: () => BridgeStore, send: (req: RouteRequest, conversation: Conversation, text: string) => Promise<string>): Record<string, RouteHandler> {
  return {
    async [`GET /api/internal/bridges/${bridge}/conversations`](req) {
      return ok({ conversations: (await store().conversations(req.auth.tenantId)).map(publicConversation) });
    },

    async [`POST /api/internal/bridges/${bridge}/conversations/:conversationId/send`](req) {
      const { text } = validate<{ text: string }>(sendSchema, req.body);
      const conversation = await store().conversation(req.auth.tenantId, req.params.conversationId!);
      if (!conversation) throw notFound(`${bridge} conversation ${req.params.conversationId}`);
      const externalId = await send(req, conversation, text);
      await store().touch(req.auth.tenantId, conversation.conversationId);
      return ok({ externalId });
    },
  };
}
