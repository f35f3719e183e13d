// The internal routes of the bridge contract (extensions/_shared/bridge/contract.ts, docs/bridges.md).
import { RoostError, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import { channelToken, conversationRoutes, deliverSchema, targetChannel, withPriority, type DeliverBody } from '../_shared/bridge/contract.js';
import type { RouteHandler, RouteRequest } from '../_shared/extension.js';
import { ok } from '../_shared/http.js';
import type { SlackBridge } from './bridge.js';
import { ANSWER_ACTION } from './talk.js';

const DELIVER = deliverSchema('slack');

async function tokenFor(bridge: SlackBridge, req: RouteRequest, channel?: Record<string, unknown>): Promise<string> {
  const token = channelToken(channel) ?? (await bridge.configs.get(req.auth.tenantId))?.secrets.botToken;
  if (!token) throw new RoostError('VALIDATION_ERROR', 'Slack is not configured for this tenant (PUT /api/bridges/slack) and the channel names no botToken');
  return token;
}

export function contractRoutes(bridge: () => SlackBridge): Record<string, RouteHandler> {
  return {
    async 'POST /api/internal/bridges/slack/deliver'(req) {
      const body = validate<DeliverBody>(DELIVER, req.body);
      const token = await tokenFor(bridge(), req, body.channel);
      if (body.kind === 'question_closed') {
        const text = `Closed: ${body.text}`;
        await bridge().update(token, body.reference!, { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
        await bridge().store.closePrompt(body.reference!);
        return ok({ externalId: body.reference });
      }
      const channel = targetChannel(body.channel);
      if (!channel) throw validationError('body.channel must name its Slack channel (channelId)');
      if (body.kind === 'notification') return ok({ externalId: await bridge().post(token, { channel, text: withPriority(body) }) });
      const question = body.question!;
      const text = `${withPriority(body)}\n_Press an answer, or reply in this thread._`;
      const buttons = question.options.map((option, i) => ({ type: 'button', text: { type: 'plain_text', text: option }, action_id: `${ANSWER_ACTION}_${i}`, value: `${question.id}|${i}` }));
      const externalId = await bridge().post(token, {
        channel,
        text,
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }, ...(buttons.length ? [{ type: 'actions', elements: buttons }] : [])],
      });
      await bridge().store.recordPrompt({ externalId, tenantId: req.auth.tenantId, kind: 'question', subjectId: question.id, conversationId: null, options: question.options });
      return ok({ externalId });
    },

    ...conversationRoutes('slack', () => bridge().store, async (req, conversation, text) =>
      bridge().post(await tokenFor(bridge(), req), { channel: conversation.channelId, ...(conversation.threadId ? { thread_ts: conversation.threadId } : {}), text }),
    ),
  };
}


