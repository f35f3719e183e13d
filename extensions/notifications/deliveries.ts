// The outbox: one row per message to send (a notification's delivery, a question's dispatch, a
// question_closed), with its status — pending, sending, delivered, failed, cancelled — its attempts and
// when it is next due. Rows are claimed by a conditional update, so one row is sent by one sender.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

export type DeliveryKind = 'notification' | 'question' | 'question_closed';
export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed' | 'cancelled';

export interface Payload {
  text: string;
  priority?: string;
  question?: { id: string; options: string[] };
  reference?: string;
}

export interface Delivery {
  id: string;
  tenantId: string;
  notificationId: string | null;
  questionId: string | null;
  channelId: string;
  channelType: string;
  kind: DeliveryKind;
  payload: Payload;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  externalId: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

interface Row {
  id: string;
  tenant_id: string;
  notification_id: string | null;
  question_id: string | null;
  channel_id: string;
  channel_type: string;
  kind: DeliveryKind;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  external_id: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
  close_queued: boolean | number;
  upstream_queued: boolean | number;
}

export interface NewDelivery {
  tenantId: string;
  notificationId?: string;
  questionId?: string;
  channelId: string;
  channelType: string;
  kind: DeliveryKind;
  payload: Payload;
}

export class DeliveryStore {
  constructor(private readonly db: Knex) {}

  async add(items: NewDelivery[]): Promise<Delivery[]> {
    const now = new Date().toISOString();
    const rows: Row[] = items.map((d) => ({
      id: randomUUID(),
      tenant_id: d.tenantId,
      notification_id: d.notificationId ?? null,
      question_id: d.questionId ?? null,
      channel_id: d.channelId,
      channel_type: d.channelType,
      kind: d.kind,
      payload: JSON.stringify(d.payload),
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      last_error: null,
      external_id: null,
      created_at: now,
      updated_at: now,
      delivered_at: null,
      close_queued: false,
      upstream_queued: false,
    }));
    if (rows.length > 0) await this.db('deliveries').insert(rows);
    return rows.map(toDelivery);
  }

  /** Takes a pending row for sending; false when another sender has it or it is no longer pending. */
  async claim(id: string): Promise<Delivery | undefined> {
    const n = await this.db('deliveries').where({ id, status: 'pending' }).update({ status: 'sending', updated_at: new Date().toISOString() });
    if (n === 0) return undefined;
    const row = await this.db<Row>('deliveries').where({ id }).first();
    return row ? toDelivery(row) : undefined;
  }

  async due(now: Date, limit: number): Promise<string[]> {
    const rows = await this.db<Row>('deliveries').where({ status: 'pending' }).andWhere('next_attempt_at', '<=', now.toISOString()).orderBy('next_attempt_at').limit(limit).select('id');
    return rows.map((r) => r.id);
  }

  async delivered(id: string, externalId: string | null, attempts: number): Promise<void> {
    const now = new Date().toISOString();
    await this.db('deliveries').where({ id }).update({ status: 'delivered', external_id: externalId, attempts, last_error: null, next_attempt_at: null, delivered_at: now, updated_at: now });
  }

  /**
   * Back to pending with the next attempt's time, or failed for good when `nextAt` is null. Only a row
   * still being sent: one cancelled meanwhile (its question closed) stays cancelled and is not sent again.
   */
  async failed(id: string, error: string, attempts: number, nextAt: Date | null): Promise<void> {
    await this.db('deliveries').where({ id, status: 'sending' }).update({
      status: nextAt ? 'pending' : 'failed',
      attempts,
      last_error: error.slice(0, 2_000),
      next_attempt_at: nextAt ? nextAt.toISOString() : null,
      updated_at: new Date().toISOString(),
    });
  }

  /**
   * The bridge took the message but has not sent it yet (its own outbox holds it): asked again later with
   * the same key, without spending an attempt.
   */
  async queuedUpstream(id: string, note: string, nextAt: Date): Promise<void> {
    await this.db('deliveries').where({ id, status: 'sending' }).update({ status: 'pending', upstream_queued: true, last_error: note.slice(0, 2_000), next_attempt_at: nextAt.toISOString(), updated_at: new Date().toISOString() });
  }

  /**
   * Dispatches of a question not yet out when it closed are not sent at all; one being sent right now is
   * marked cancelled too, so a failure does not put it back in line (a success still records it delivered,
   * and it is then closed at once). One a bridge already holds in its own outbox goes out whatever we do:
   * it is asked about until delivered, and then closed.
   */
  async cancelPending(questionId: string): Promise<void> {
    await this.db('deliveries').where({ question_id: questionId, kind: 'question', upstream_queued: false }).whereIn('status', ['pending', 'sending']).update({ status: 'cancelled', next_attempt_at: null, updated_at: new Date().toISOString() });
  }

  /** True for the one caller that gets to queue the question_closed of this dispatch. */
  async markClosing(id: string): Promise<boolean> {
    return (await this.db('deliveries').where({ id, close_queued: false }).update({ close_queued: true })) > 0;
  }

  /** Rows left `sending` by an instance that died mid-send are sent again. */
  async releaseStale(olderThan: Date): Promise<void> {
    await this.db('deliveries').where({ status: 'sending' }).andWhere('updated_at', '<', olderThan.toISOString()).update({ status: 'pending', next_attempt_at: new Date().toISOString() });
  }

  async ofNotification(tenantId: string, notificationId: string): Promise<Delivery[]> {
    return (await this.db<Row>('deliveries').where({ tenant_id: tenantId, notification_id: notificationId }).orderBy('created_at').orderBy('id')).map(toDelivery);
  }

  async ofQuestion(tenantId: string, questionId: string): Promise<Delivery[]> {
    return (await this.db<Row>('deliveries').where({ tenant_id: tenantId, question_id: questionId }).orderBy('created_at').orderBy('id')).map(toDelivery);
  }

  async hasOpenWork(): Promise<boolean> {
    return (await this.db('deliveries').whereIn('status', ['pending', 'sending']).first('id')) !== undefined;
  }
}

function toDelivery(row: Row): Delivery {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    notificationId: row.notification_id,
    questionId: row.question_id,
    channelId: row.channel_id,
    channelType: row.channel_type,
    kind: row.kind,
    payload: JSON.parse(row.payload),
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    externalId: row.external_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deliveredAt: row.delivered_at,
  };
}
