// Sends one delivery: a webhook channel is a plain HTTP POST made here; every other type goes to its
// bridge extension's internal deliver route through the kernel (docs/notifications.md, "bridge contract").
import type { HostClient } from '../../sdk/host-client.js';
import { parseHttpUrl, request, type Reach } from '../../sdk/outbound.js';
import { checkTarget, reachOfUrl } from '../../sdk/reach.js';
import type { ChannelTarget } from './channels.js';
import { ATTEMPT_TIMEOUT_MS, type Settings } from './config.js';
import type { Delivery } from './deliveries.js';

/** What a webhook's answer may weigh; only its status is used. */
const REPLY_MAX_BYTES = 64 * 1024;

/** The bridge accepted the message into its own outbox but has not sent it yet: ask again later. */
export class QueuedUpstream extends Error {}

/** The message a webhook receives and a bridge's deliver route takes. */
export function deliverBody(delivery: Delivery, channel: Record<string, unknown>): Record<string, unknown> {
  const { text, priority, question, reference } = delivery.payload;
  return { kind: delivery.kind, channel, text, ...(priority ? { priority } : {}), ...(question ? { question } : {}), ...(reference ? { reference } : {}) };
}

/** The external id of what was sent; throws an Error whose message says why it was not. */
export async function send(host: HostClient, delivery: Delivery, channel: ChannelTarget, settings: Settings): Promise<string | null> {
  return channel.type === 'webhook' ? sendWebhook(delivery, channel, settings) : sendToBridge(host, delivery, channel);
}

/**
 * Where a webhook may go: the tenant's reach (sdk/reach.ts), and for an agent's own
 * channel (one with an agentId: an agent names its own webhook URLs with svc_configure_notifications)
 * public addresses only unless ALLOW_PRIVATE_URLS=1.
 */
function webhookReach(tenantId: string, agentId: string | null, url: URL, settings: Settings): Reach {
  return reachOfUrl(settings.reach, tenantId, url, agentId !== null);
}

/** A webhook URL being stored, refused (403) when it is outside the channel's reach; each delivery checks again. */
export function checkWebhook(tenantId: string, agentId: string | null, url: string, settings: Settings, what: string): Promise<URL> {
  return checkTarget(settings.reach, tenantId, url, what, agentId !== null);
}

/** The config goes in the body; of the secrets only `token`, and only in the X-Roost-Token header. */
async function sendWebhook(delivery: Delivery, channel: ChannelTarget, settings: Settings): Promise<string> {
  const { url, ...config } = channel.config;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'roost-notifications' };
  const token = channel.secrets.token;
  if (typeof token === 'string' && token !== '') headers['x-roost-token'] = token;
  const body = { ...deliverBody(delivery, { ...config, type: 'webhook' }), deliveryId: delivery.id, ...(delivery.questionId ? { questionId: delivery.questionId } : {}), ...(delivery.notificationId ? { notificationId: delivery.notificationId } : {}) };
  let reply;
  try {
    const target = parseHttpUrl(String(url));
    const reach = webhookReach(delivery.tenantId, channel.agentId, target, settings);
    reply = await request({ method: 'POST', url: target, headers, body, timeoutMs: ATTEMPT_TIMEOUT_MS, maxBytes: REPLY_MAX_BYTES, reach, read: 'text' });
  } catch (err) {
    throw new Error(`webhook unreachable: ${(err as Error).message}`);
  }
  const text = String(reply.body ?? '');
  if (reply.status < 200 || reply.status >= 300) throw new Error(`webhook answered ${reply.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
  return delivery.id;
}

/**
 * The delivery's id is its idempotency key: a bridge that already sent it (an earlier attempt whose
 * answer was lost) answers the same externalId instead of posting again; one that still holds it in its
 * own outbox answers 202 (QueuedUpstream).
 */
async function sendToBridge(host: HostClient, delivery: Delivery, channel: ChannelTarget): Promise<string | null> {
  const path = `/api/internal/bridges/${encodeURIComponent(channel.type)}/deliver`;
  const target = { ...channel.config, ...channel.secrets, type: channel.type };
  const reply = await host.call<Record<string, unknown> | null>('POST', path, { ...deliverBody(delivery, target), key: delivery.id }, { tenantId: delivery.tenantId });
  const body = reply.body ?? {};
  if (reply.status === 404 && body.code === 'ROUTE_NOT_FOUND') throw new Error(`the ${channel.type} bridge extension is not loaded (nobody serves ${path})`);
  if (reply.status === 202) throw new QueuedUpstream(`the ${channel.type} bridge queued it${typeof body.lastError === 'string' ? ` (${body.lastError})` : ''}`);
  if (reply.status < 200 || reply.status >= 300) {
    throw new Error(`the ${channel.type} bridge answered ${reply.status}${typeof body.error === 'string' ? `: ${body.error}` : ''}`);
  }
  return typeof body.externalId === 'string' || typeof body.externalId === 'number' ? String(body.externalId) : null;
}
