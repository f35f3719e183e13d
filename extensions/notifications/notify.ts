// svc_notify_owner: one message fanned out to the owner's channels, each delivery recorded and retried.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { validationError } from '../../protocol/errors.js';
import type { Channel, ChannelStore } from './channels.js';
import type { Delivery, DeliveryStore } from './deliveries.js';
import type { Outbox } from './outbox.js';

export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];
/** How long svc_notify_owner waits for the first attempts before answering with what it knows. */
const FIRST_ATTEMPT_WAIT_MS = 5_000;

export interface Caller {
  tenantId: string;
  agentId: string | null;
  sessionId: string | null;
}

export interface Notification {
  id: string;
  tenantId: string;
  agentId: string | null;
  sessionId: string | null;
  message: string;
  priority: Priority;
  createdAt: string;
}

interface Row {
  id: string;
  tenant_id: string;
  agent_id: string | null;
  session_id: string | null;
  message: string;
  priority: Priority;
  created_at: string;
}

/** The enabled channels an agent reaches its owner through, narrowed to `wanted` (ids, types or names). */
export async function channelsFor(channels: ChannelStore, caller: Caller, wanted?: string[]): Promise<Channel[]> {
  const all = (await channels.list(caller.tenantId, caller.agentId ? { forAgent: caller.agentId } : { agentId: null })).filter((c) => c.enabled);
  if (!wanted || wanted.length === 0) return all;
  const unknown = wanted.filter((w) => !all.some((c) => c.id === w || c.type === w || c.name === w));
  if (unknown.length > 0) throw validationError(`no enabled notification channel matches ${unknown.map((u) => JSON.stringify(u)).join(', ')}`);
  return all.filter((c) => wanted.some((w) => c.id === w || c.type === w || c.name === w));
}

export class Notifications {
  constructor(private readonly db: Knex, private readonly channels: ChannelStore, private readonly deliveries: DeliveryStore, private readonly outbox: Outbox) {}

  async notify(caller: Caller, input: { message: string; channels?: string[]; priority?: Priority }): Promise<{ notification: Notification; deliveries: Delivery[] }> {
    const targets = await channelsFor(this.channels, caller, input.channels);
    if (targets.length === 0) throw validationError('no notification channels are configured for this agent or its tenant (svc_configure_notifications, or /api/notification-channels)');
    const row: Row = {
      id: randomUUID(),
      tenant_id: caller.tenantId,
      agent_id: caller.agentId,
      session_id: caller.sessionId,
      message: input.message,
      priority: input.priority ?? 'normal',
      created_at: new Date().toISOString(),
    };
    await this.db('notifications').insert(row);
    const queued = await this.deliveries.add(targets.map((c) => ({
      tenantId: caller.tenantId, notificationId: row.id, channelId: c.id, channelType: c.type, kind: 'notification' as const, payload: { text: row.message, priority: row.priority },
    })));
    await this.outbox.keepAwake();
    const first = Promise.all(queued.map((d) => this.outbox.attempt(d.id)));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([first, new Promise((resolve) => (timer = setTimeout(resolve, FIRST_ATTEMPT_WAIT_MS)))]);
    clearTimeout(timer);
    return { notification: toNotification(row), deliveries: await this.deliveries.ofNotification(caller.tenantId, row.id) };
  }

  async list(tenantId: string, filter: { agentId?: string; limit: number; offset: number }): Promise<Notification[]> {
    const q = this.db<Row>('notifications').where({ tenant_id: tenantId });
    if (filter.agentId) q.andWhere({ agent_id: filter.agentId });
    return (await q.orderBy('created_at', 'desc').orderBy('id').limit(filter.limit).offset(filter.offset)).map(toNotification);
  }

  async get(tenantId: string, id: string): Promise<Notification | undefined> {
    const row = await this.db<Row>('notifications').where({ tenant_id: tenantId, id }).first();
    return row ? toNotification(row) : undefined;
  }
}

function toNotification(row: Row): Notification {
  return { id: row.id, tenantId: row.tenant_id, agentId: row.agent_id, sessionId: row.session_id, message: row.message, priority: row.priority, createdAt: row.created_at };
}
