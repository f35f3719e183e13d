// The internal routes of the bridge contract (extensions/_shared/bridge/contract.ts, docs/bridges.md).
import { validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import { channelToken, conversationRoutes, deliverSchema, targetChannel, withPriority, type DeliverBody } from '../_shared/bridge/contract.js';
import type { RouteHandler, RouteRequest } from '../_shared/extension.js';
import { ok } from '../_shared/http.js';
import type { DiscordBridge } from './bridge.js';

const DELIVER = deliverSchema('discord');

async function tokenFor(bridge: DiscordBridge, req: RouteRequest, channel?: Record<string, unknown>): Promise<string> {
  return channelToken(channel) ?? bridge.botToken(await bridge.configs.get(req.auth.tenantId));
}

export function contractRoutes(bridge: () => DiscordBridge): Record<string, RouteHandler> {
  return {
    async 'POST /api/internal/bridges/discord/deliver'(req) {
      const body = validate<DeliverBody>(DELIVER, req.body);
      const token = await tokenFor(bridge(), req, body.channel);
      if (body.kind === 'question_closed') {
        await bridge().editMessage(token, body.reference!, { content: `Closed: ${body.text}`.slice(0, 2000), components: [] });
        await bridge().store.closePrompt(body.reference!);
        return ok({ externalId: body.reference });
      }
      const channel = targetChannel(body.channel);
      if (!channel) throw validationError('body.channel must name its Discord channel (channelId)');
      if (body.kind === 'notification') {
        const message = await bridge().channelMessage(token, channel, { content: withPriority(body).slice(0, 2000) });
        return ok({ externalId: `${channel}:${message.id}` });
      }
      const question = body.question!;
      const buttons = question.options.map((label, i) => ({ type: 2, style: 1, label, custom_id: `ans:${question.id}:${i}` }));
      const message = await bridge().channelMessage(token, channel, { content: withPriority(body).slice(0, 2000), ...(buttons.length ? { components: [{ type: 1, components: buttons }] } : {}) });
      const externalId = `${channel}:${message.id}`;
      await bridge().store.recordPrompt({ externalId, tenantId: req.auth.tenantId, kind: 'question', subjectId: question.id, conversationId: null, options: question.options });
      return ok({ externalId });
    },

    ...conversationRoutes('discord', () => bridge().store, async (req, conversation, text) => {
      const message = await bridge().channelMessage(await tokenFor(bridge(), req), conversation.channelId, { content: text.slice(0, 2000) });
      return `${conversation.channelId}:${message.id}`;
    }),
  };
}
