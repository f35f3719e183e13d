// The internal routes of the bridge contract (sdk/bridge/contract.ts, docs/bridges.md).
// Every message goes through the bridge's outbox; the notifications delivery id is the idempotency key.
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import { channelToken, conversationRoutes, DELIVER_WAIT_MS, deliverReply, deliverSchema, SEND_WAIT_MS, targetChannel, withPriority, type DeliverBody } from '../../sdk/bridge/contract.js';
import type { RouteHandler, RouteRequest } from '../../sdk/extension.js';
import type { DiscordBridge, DiscordOp } from './bridge.js';

const DELIVER = deliverSchema('discord');

async function opFor(bridge: DiscordBridge, req: RouteRequest, body: DeliverBody): Promise<DiscordOp> {
  const own = channelToken(body.channel);
  if (!own) bridge.botToken(await bridge.configs.get(req.auth.tenantId));
  const token = own ? { sealedToken: await bridge.configs.sealFor(req.auth.tenantId, own) } : {};
  if (body.kind === 'question_closed' && !/^\d+:\d+$/.test(body.reference!)) throw validationError('body.reference must be a Discord message id (<channel id>:<message id>)');
  if (body.kind === 'question_closed') return { kind: 'edit', externalId: body.reference!, body: { content: `Closed: ${body.text}`.slice(0, 2000), components: [] }, closePrompt: true, ...token };
  const channelId = targetChannel(body.channel);
  if (!channelId) throw validationError('body.channel must name its Discord channel (channelId)');
  const content = withPriority(body).slice(0, 2000);
  if (body.kind === 'notification') return { kind: 'message', channelId, body: { content, allowed_mentions: { parse: [] } }, ...token };
  const question = body.question!;
  const buttons = question.options.map((label, i) => ({ type: 2, style: 1, label, custom_id: `ans:${question.id}:${i}` }));
  return {
    kind: 'message',
    channelId,
    body: { content, allowed_mentions: { parse: [] }, ...(buttons.length ? { components: [{ type: 1, components: buttons }] } : {}) },
    prompt: { kind: 'question', subjectId: question.id, conversationId: null, options: question.options },
    ...token,
  };
}

export const contractRoutes: Record<string, RouteHandler<DiscordBridge>> = {
  async 'POST /api/internal/bridges/discord/deliver'(req, _ctx, bridge) {
    const body = validate<DeliverBody>(DELIVER, req.body);
    const op = await opFor(bridge, req, body);
    return deliverReply(await bridge.queue(req.auth.tenantId, op, { waitMs: DELIVER_WAIT_MS, ...(body.key ? { key: `deliver:${req.auth.tenantId}:${body.key}` } : {}) }));
  },

  /** The contract's conversation routes (sdk/bridge/contract.ts) over this bridge's store and outbox. */
  ...conversationRoutes<DiscordBridge>('discord', (bridge) => bridge.store, (ctx) => ctx.host, async (req, conversation, text, key, bridge) => {
    bridge.botToken(await bridge.configs.get(req.auth.tenantId));
    return bridge.queue(req.auth.tenantId, { kind: 'message', channelId: conversation.channelId, body: { content: text.slice(0, 2000), allowed_mentions: { parse: [] } } }, { waitMs: SEND_WAIT_MS, ...(key ? { key } : {}) });
  }),
};
