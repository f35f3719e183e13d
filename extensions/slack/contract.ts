// The internal routes of the bridge contract (sdk/bridge/contract.ts, docs/bridges.md).
// Every message goes through the bridge's outbox; the notifications delivery id is the idempotency key.
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import { channelToken, conversationRoutes, DELIVER_WAIT_MS, deliverReply, deliverSchema, SEND_WAIT_MS, targetChannel, withPriority, type DeliverBody } from '../../sdk/bridge/contract.js';
import type { RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { section, type SlackBridge, type SlackOp } from './bridge.js';
import { ANSWER_ACTION } from './talk.js';

const DELIVER = deliverSchema('slack');

/** The op for a deliver body, its own bot token (when the channel names one) sealed. */
async function opFor(bridge: SlackBridge, req: RouteRequest, body: DeliverBody): Promise<SlackOp> {
  const own = channelToken(body.channel);
  const sealedToken = own ? await bridge.configs.sealFor(req.auth.tenantId, own) : undefined;
  const token = sealedToken ? { sealedToken } : {};
  if (body.kind === 'question_closed') {
    const text = `Closed: ${body.text}`;
    return { kind: 'update', externalId: body.reference!, message: { text, blocks: [section(text)] }, closePrompt: true, ...token };
  }
  const channel = targetChannel(body.channel);
  if (!channel) throw validationError('body.channel must name its Slack channel (channelId)');
  if (body.kind === 'notification') return { kind: 'post', channel, message: { text: withPriority(body) }, ...token };
  const question = body.question!;
  const text = `${withPriority(body)}\n_Press an answer, or reply in this thread._`;
  const buttons = question.options.map((option, i) => ({ type: 'button', text: { type: 'plain_text', text: option }, action_id: `${ANSWER_ACTION}_${i}`, value: `${question.id}|${i}` }));
  return {
    kind: 'post',
    channel,
    message: { text, blocks: [section(text), ...(buttons.length ? [{ type: 'actions', elements: buttons }] : [])] },
    prompt: { kind: 'question', subjectId: question.id, conversationId: null, options: question.options },
    ...token,
  };
}

export const contractRoutes: Record<string, RouteHandler<SlackBridge>> = {
  async 'POST /api/internal/bridges/slack/deliver'(req, _ctx, bridge) {
    const body = validate<DeliverBody>(DELIVER, req.body);
    const op = await opFor(bridge, req, body);
    if (!channelToken(body.channel) && !(await bridge.configs.get(req.auth.tenantId))) throw validationError('Slack is not configured for this tenant (PUT /api/bridges/slack) and the channel names no botToken');
    return deliverReply(await bridge.queue(req.auth.tenantId, op, { waitMs: DELIVER_WAIT_MS, ...(body.key ? { key: `deliver:${req.auth.tenantId}:${body.key}` } : {}) }));
  },

  ...conversationRoutes<SlackBridge>('slack', (bridge) => bridge.store, (ctx) => ctx.host, (req, conversation, text, key, bridge) =>
    bridge.queue(req.auth.tenantId, { kind: 'post', channel: conversation.channelId, ...(conversation.threadId ? { threadTs: conversation.threadId } : {}), message: { text } }, { waitMs: SEND_WAIT_MS, ...(key ? { key } : {}) }),
  ),
};
