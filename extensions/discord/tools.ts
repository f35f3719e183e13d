// svc_send_chat_message and svc_send_chat_image: an agent writes to a Discord channel as its tenant's
// bot. The message goes through the outbox and the tool answers within a few seconds: "sent" with the
// message id, or "queued" (Discord is slow, down or rate-limiting; it is retried and sent later). The
// same session sending the same thing to the same channel again within ten minutes gets the first
// send's status instead of a second message (an agent retrying a call it thought failed).
import { createHash } from 'node:crypto';
import { SEND_WAIT_MS } from '../../sdk/bridge/contract.js';
import type { OutboxStatus } from '../../sdk/bridge/outbox.js';
import type { ToolHandler } from '../../sdk/extension.js';
import { reachOfUrl } from '../../sdk/reach.js';
import type { DiscordBridge } from './bridge.js';
import { loadImage } from './image.js';

const REPEAT_WINDOW_MS = 10 * 60_000;
const result = (value: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value });

function outcome(channelId: string, status: OutboxStatus, extra: Record<string, unknown> = {}) {
  if (status.status === 'failed') return { content: [{ type: 'text' as const, text: `the message could not be sent: ${status.lastError ?? 'unknown error'}` }], isError: true };
  const messageId = status.externalId?.split(':')[1] ?? null;
  return result({
    sent: status.status === 'sent', status: status.status, outboxId: status.id, channelId, messageId, ...extra,
    ...(status.status === 'queued' ? { note: `queued: it is sent when Discord accepts it${status.lastError ? ` (last error: ${status.lastError})` : ''}; do not send it again` } : {}),
  });
}

const repeatKey = (caller: { tenantId: string; sessionId?: string | null; agentId?: string | null }, parts: string[]) =>
  `tool:${caller.tenantId}:${createHash('sha256').update(JSON.stringify([caller.sessionId ?? caller.agentId ?? '', ...parts])).digest('hex')}`;

export const tools: Record<string, ToolHandler<DiscordBridge>> = {
  async svc_send_chat_message(args, caller, _ctx, bridge) {
    const channelId = String(args.channel_id);
    bridge.botToken(await bridge.configs.get(caller.tenantId));
    const content = String(args.content);
    const status = await bridge.queue(caller.tenantId, { kind: 'message', channelId, body: { content, allowed_mentions: { parse: [] } } }, { waitMs: SEND_WAIT_MS, key: repeatKey(caller, ['message', channelId, content]), keyWindowMs: REPEAT_WINDOW_MS });
    return outcome(channelId, status);
  },

  async svc_send_chat_image(args, caller, _ctx, bridge) {
    const channelId = String(args.channel_id);
    bridge.botToken(await bridge.configs.get(caller.tenantId));
    const image = await loadImage(String(args.image), (url) => reachOfUrl(bridge.reach, caller.tenantId, url));
    const caption = typeof args.caption === 'string' ? args.caption : '';
    const base64 = image.data.toString('base64');
    const files = [{ name: image.name, contentType: image.contentType, base64 }];
    const key = repeatKey(caller, ['image', channelId, caption, createHash('sha256').update(image.data).digest('hex')]);
    const status = await bridge.queue(caller.tenantId, { kind: 'message', channelId, body: { content: caption, allowed_mentions: { parse: [] } }, files }, { waitMs: SEND_WAIT_MS, key, keyWindowMs: REPEAT_WINDOW_MS });
    return outcome(channelId, status, { bytes: image.data.length, contentType: image.contentType });
  },
};
