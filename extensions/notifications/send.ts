// Sends one delivery: a webhook channel is a plain HTTP POST made here; every other type goes to its
// bridge extension's internal deliver route through the kernel (docs/notifications.md, "bridge contract").
import type { HostClient } from '../_shared/host-client.js';
import { parseHttpUrl, request, type Reach } from '../_shared/outbound.js';
import { INSTANCE_TENANT } from '../_shared/roles.js';
import { ATTEMPT_TIMEOUT_MS, type Settings } from './config.js';

/** What a webhook's answer may weigh; only its status is used. */
const REPLY_MAX_BYTES = 64 * 1024;
import type { Delivery } from './deliveries.js';

export type Target = Record<string, unknown> & { type: string };

/** The message a webhook receives and a bridge's deliver route takes. */
export function deliverBody(delivery: Delivery, channel: Target): Record<string, unknown> {
  const { text, priority, question, reference } = delivery.payload;
  return { kind: delivery.kind, channel, text, ...(priority ? { priority } : {}), ...(question ? { question } : {}), ...(reference ? { reference } : {}) };
}

/** The external id of what was sent; throws an Error whose message says why it was not. */
export async function send(host: HostClient, delivery: Delivery, channel: Target, settings: Settings): Promise<string | null> {
  return channel.type === 'webhook' ? sendWebhook(delivery, channel, reachOf(delivery.tenantId, settings)) : sendToBridge(host, delivery, channel);
}

/** A tenant's webhook never reaches a metadata address, nor a private one unless the settings allow it. */
function reachOf(tenantId: string, settings: Settings): Reach {
  const privateAllowed = settings.privateUrls === 'all' || (settings.privateUrls === 'owner' && tenantId === INSTANCE_TENANT);
  return privateAllowed ? 'no-metadata' : 'public';
}

async function sendWebhook(delivery: Delivery, channel: Target, reach: Reach): Promise<string> {
  const { url, token, ...config } = channel;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'roost-notifications' };
  if (typeof token === 'string' && token !== '') headers['x-roost-token'] = token;
  const body = { ...deliverBody(delivery, config as Target), deliveryId: delivery.id, ...(delivery.questionId ? { questionId: delivery.questionId } : {}), ...(delivery.notificationId ? { notificationId: delivery.notificationId } : {}) };
  let reply;
  try {
    reply = await request({ method: 'POST', url: parseHttpUrl(String(url)), headers, body, timeoutMs: ATTEMPT_TIMEOUT_MS, maxBytes: REPLY_MAX_BYTES, reach, read: 'text' });
  } catch (err) {
    throw new Error(`webhook unreachable: ${(err as Error).message}`);
  }
  const text = String(reply.body ?? '');
  if (reply.status < 200 || reply.status >= 300) throw new Error(`webhook answered ${reply.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
  return delivery.id;
}

async function sendToBridge(host: HostClient, delivery: Delivery, channel: Target): Promise<string | null> {
  const path = `/api/internal/bridges/${encodeURIComponent(channel.type)}/deliver`;
  const reply = await host.call<Record<string, unknown> | null>('POST', path, deliverBody(delivery, channel), { tenantId: delivery.tenantId });
  const body = reply.body ?? {};
  if (reply.status === 404 && body.code === 'ROUTE_NOT_FOUND') throw new Error(`the ${channel.type} bridge extension is not loaded (nobody serves ${path})`);
  if (reply.status < 200 || reply.status >= 300) {
    throw new Error(`the ${channel.type} bridge answered ${reply.status}${typeof body.error === 'string' ? `: ${body.error}` : ''}`);
  }
  return typeof body.externalId === 'string' || typeof body.externalId === 'number' ? String(body.externalId) : null;
}
