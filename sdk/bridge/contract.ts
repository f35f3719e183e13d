// The contract between the bridges and the notifications extension (docs/bridges.md, "The contract"):
// the bodies of the internal routes every bridge <b> serves.
//   POST /api/internal/bridges/<b>/deliver                           → 200 {externalId}, or 202 {status: queued}
//   GET  /api/internal/bridges/<b>/conversations                     → {conversations} (live ones)
//   POST /api/internal/bridges/<b>/conversations/:conversationId/send → {status: sent|queued, id, externalId}
// Both sends go through the bridge's outbox (outbox.ts) and answer within a few seconds whatever the chat
// service does; `key` makes them idempotent.
import { notFound, RoostError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteReply } from '../../protocol/messages.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../extension.js';
import type { HostClient } from '../host-client.js';
import { ok } from '../http.js';
import type { OutboxStatus } from './outbox.js';
import { publicConversation, type BridgeStore, type Conversation } from './store.js';
import { SESSION_ENDED, sessionsClient, type SessionStatus } from '../../extensions/sessions/contract.js';

/** How long the deliver route waits for its message to leave before answering 202 (queued). */
export const DELIVER_WAIT_MS = 8_000;
/** How long a conversation send waits before answering "queued" (an agent's tool call must not hang). */
export const SEND_WAIT_MS = 3_000;

export interface DeliverBody {
  kind: 'notification' | 'question' | 'question_closed';
  channel: { type: string; [field: string]: unknown };
  text: string;
  priority?: 'low' | 'normal' | 'high' | 'urgent';
  question?: { id: string; options: string[] };
  /** For question_closed: the externalId of the question's message. */
  reference?: string;
  key?: string;
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
    key: { type: 'string', minLength: 1, maxLength: 200, description: 'Idempotency key (the notifications delivery id): the same key is sent once' },
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
  properties: { text: { type: 'string', minLength: 1, maxLength: 4000 }, key: { type: 'string', minLength: 1, maxLength: 200 } },
};

/** The deliver route's answer for where its outbox row stands. */
export function deliverReply(status: OutboxStatus): RouteReply {
  if (status.status === 'sent') return ok({ externalId: status.externalId });
  if (status.status === 'failed') throw new RoostError('UPSTREAM_ERROR', `the message could not be sent after ${status.attempts} attempts: ${status.lastError ?? 'unknown error'}`);
  return { status: 202, body: { status: 'queued', id: status.id, attempts: status.attempts, lastError: status.lastError } };
}

/** The send route's answer: sent or queued (it goes out when the service is back), or an error when given up. */
export function sendReply(status: OutboxStatus): RouteReply {
  if (status.status === 'failed') throw new RoostError('UPSTREAM_ERROR', `the message could not be sent after ${status.attempts} attempts: ${status.lastError ?? 'unknown error'}`);
  return ok({ status: status.status, id: status.id, externalId: status.externalId, ...(status.lastError ? { lastError: status.lastError } : {}) });
}

/** Whether a session still runs (asked of the sessions extension; a session it cannot find is over). */
export async function sessionLive(host: HostClient, tenantId: string, sessionId: string | null): Promise<boolean> {
  if (!sessionId) return false;
  const reply = await sessionsClient(host, { tenantId }).get(sessionId);
  if (reply.status === 404) return false;
  if (reply.status !== 200) throw new RoostError('UPSTREAM_ERROR', `asking for session ${sessionId} failed with status ${reply.status}`);
  return !SESSION_ENDED.includes(reply.body?.status as SessionStatus);
}

/** The items whose session is live, in their order. */
export async function liveOnly<T>(host: HostClient, tenantId: string, items: T[], sessionOf: (item: T) => string | null): Promise<T[]> {
  const live = await Promise.all(items.map((item) => sessionLive(host, tenantId, sessionOf(item))));
  return items.filter((_, i) => live[i]);
}

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

/**
 * The contract's two conversation routes. The list holds live conversations only (their session still
 * runs); `send` queues the text for the conversation (with its idempotency key) and answers the outbox status.
 * `store`, `host` and `send` are given the bridge's running state (what its setup returned) and its ctx.
 */
export function conversationRoutes<S = unknown>(
  bridge: string,
  store: (state: S) => BridgeStore,
  host: (ctx: ExtensionContext) => HostClient,
  send: (req: RouteRequest, conversation: Conversation, text: string, key: string | undefined, state: S) => Promise<OutboxStatus>,
): Record<string, RouteHandler<S>> {
  return {
    async [`GET /api/internal/bridges/${bridge}/conversations`](req, ctx, state) {
      const all = await store(state).conversations(req.auth.tenantId);
      return ok({ conversations: (await liveOnly(host(ctx), req.auth.tenantId, all, (c) => c.sessionId)).map(publicConversation) });
    },

    async [`POST /api/internal/bridges/${bridge}/conversations/:conversationId/send`](req, _ctx, state) {
      const { text, key } = validate<{ text: string; key?: string }>(sendSchema, req.body);
      const conversation = await store(state).conversation(req.auth.tenantId, req.params.conversationId!);
      if (!conversation) throw notFound(`${bridge} conversation ${req.params.conversationId}`);
      const status = await send(req, conversation, text, key === undefined ? undefined : `send:${req.auth.tenantId}:${key}`, state);
      await store(state).touch(req.auth.tenantId, conversation.conversationId);
      return sendReply(status);
    },
  };
}
