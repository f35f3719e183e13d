// POST /workchat/events: Slack's Events API. Answers at once (Slack waits three seconds at most) and
// handles the event afterwards; a delivery seen before (same event_id: Slack's retries, replays) is
// acknowledged and dropped, and so is the second event about one message (a mention in a channel the bot
// reads arrives as both app_mention and message). What comes in is rate-limited per user and per thread.
import { answerOwnerQuestion } from '../notifications/contract.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import type { SlackBridge, SlackConfig } from './bridge.js';
import { parseJson, rawBody, signedBy } from './inbound.js';
import { talk } from './talk.js';

export interface SlackMessageEvent {
  type: string;
  channel: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
}

export const eventRoutes: Record<string, RouteHandler<SlackBridge>> = {
  async 'POST /workchat/events'(req, ctx, bridge) {
    const body = rawBody(req);
    const payload = parseJson(body, 'the event');
    const config = await signedBy(bridge, req, body, payload);
    if (payload.type === 'url_verification') return ok({ challenge: String(payload.challenge ?? '') });
    if (payload.type !== 'event_callback' || typeof payload.event !== 'object' || payload.event === null) return ok({ ok: true, ignored: 'not an event callback' });
    const eventId = typeof payload.event_id === 'string' ? payload.event_id : `${payload.event.channel}:${payload.event.ts}`;
    if (!(await bridge.store.firstSight(`event:${config.tenantId}:${eventId}`))) return ok({ ok: true, duplicate: true });
    void handle(bridge, config, payload.event as SlackMessageEvent).catch((err) => ctx.host.log('error', `slack: event ${eventId} failed: ${(err as Error).message}`));
    return ok({ ok: true });
  },
};

async function handle(bridge: SlackBridge, config: SlackConfig, event: SlackMessageEvent): Promise<void> {
  if (event.bot_id || event.subtype || !event.user || event.user === config.settings.botUserId || typeof event.channel !== 'string' || typeof event.ts !== 'string') return;
  const text = (event.text ?? '').replace(/<@[A-Z0-9]+>/g, '').trim();
  // A reply in the thread of an owner question answers it.
  const question = event.thread_ts ? await bridge.store.prompt(`${event.channel}:${event.thread_ts}`) : undefined;
  const isAnswer = question?.kind === 'question' && question.tenantId === config.tenantId;
  const addressed = event.type === 'app_mention' || (event.type === 'message' && event.channel_type === 'im');
  if ((!isAnswer && !addressed) || text === '') return;
  // One message, one action, whichever of its events came first.
  if (!(await bridge.store.firstSight(`message:${config.tenantId}:${event.channel}:${event.ts}`))) return;
  const threadTs = event.thread_ts ?? event.ts;
  if (!admitted(bridge, config, event.user, `${event.channel}:${threadTs}`)) {
    if (bridge.inbound.warnOnce(`user:${config.tenantId}:${event.user}`)) await bridge.queue(config.tenantId, { kind: 'post', channel: event.channel, threadTs, message: { text: 'Too many messages: wait a minute before sending more.' } });
    return;
  }
  if (isAnswer) {
    const answer = question.options.find((o) => o.toLowerCase() === text.toLowerCase()) ?? text;
    const outcome = await answerOwnerQuestion(bridge.ctx.host, config.tenantId, question.subjectId, answer, 'slack', event.user);
    if (outcome.accepted) await bridge.store.closePrompt(question.externalId);
    await bridge.queue(config.tenantId, { kind: 'post', channel: event.channel, threadTs: event.thread_ts!, message: { text: outcome.text } });
    return;
  }
  await talk(bridge, config, { channel: event.channel, threadTs, text, user: event.user });
}

/** Within the user's budget and the thread's (a flood of new mentions would otherwise start session after session). */
function admitted(bridge: SlackBridge, config: SlackConfig, user: string, conversationId: string): boolean {
  return bridge.inbound.take(`user:${config.tenantId}:${user}`) && bridge.inbound.take(`thread:${config.tenantId}:${conversationId}`);
}
