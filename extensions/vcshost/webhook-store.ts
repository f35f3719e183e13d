// Outbound webhook registrations (their secrets sealed at rest) and their deliveries.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

export interface Registration {
  id: string;
  url: string;
  events: string[];
  repo: string | null;
  active: boolean;
  description: string;
  createdAt: string;
  updatedAt: string;
}

export interface RegistrationRow {
  id: string;
  tenant_id: string;
  url: string;
  events: string;
  repo: string | null;
  secret_sealed: string;
  active: boolean | number;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface DeliveryRow {
  id: string;
  tenant_id: string;
  webhook_id: string;
  event: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: number | string;
  response_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export const toRegistration = (r: RegistrationRow): Registration => ({
  id: r.id, url: r.url, events: JSON.parse(r.events) as string[], repo: r.repo, active: Boolean(r.active), description: r.description, createdAt: r.created_at, updatedAt: r.updated_at,
});

export const toDelivery = (d: DeliveryRow) => ({
  id: d.id, webhookId: d.webhook_id, event: d.event, status: d.status, attempts: d.attempts, nextAttemptAt: d.status === 'pending' ? new Date(Number(d.next_attempt_at)).toISOString() : null,
  responseStatus: d.response_status, lastError: d.last_error, createdAt: d.created_at, deliveredAt: d.delivered_at,
});

export type RegistrationInput = { url: string; events: string[]; repo?: string | null; active?: boolean; description?: string };

export class WebhookStore {
  constructor(private readonly db: Knex) {}

  async list(tenantId: string): Promise<Registration[]> {
    return (await this.db<RegistrationRow>('webhooks').where({ tenant_id: tenantId }).orderBy('created_at')).map(toRegistration);
  }

  row(tenantId: string, id: string): Promise<RegistrationRow | undefined> {
    return this.db<RegistrationRow>('webhooks').where({ tenant_id: tenantId, id }).first();
  }

  async create(tenantId: string, id: string, input: RegistrationInput, secretSealed: string): Promise<RegistrationRow> {
    const now = new Date().toISOString();
    const row: RegistrationRow = {
      id, tenant_id: tenantId, url: input.url, events: JSON.stringify(input.events), repo: input.repo ?? null, secret_sealed: secretSealed,
      active: input.active ?? true, description: input.description ?? '', created_at: now, updated_at: now,
    };
    await this.db('webhooks').insert(row);
    return row;
  }

  async update(tenantId: string, id: string, input: Partial<RegistrationInput>, secretSealed?: string): Promise<RegistrationRow | undefined> {
    const patch: Partial<RegistrationRow> = { updated_at: new Date().toISOString() };
    if (input.url !== undefined) patch.url = input.url;
    if (input.events !== undefined) patch.events = JSON.stringify(input.events);
    if (input.repo !== undefined) patch.repo = input.repo;
    if (input.active !== undefined) patch.active = input.active;
    if (input.description !== undefined) patch.description = input.description;
    if (secretSealed !== undefined) patch.secret_sealed = secretSealed;
    const n = await this.db('webhooks').where({ tenant_id: tenantId, id }).update(patch);
    return n > 0 ? this.row(tenantId, id) : undefined;
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return (await this.db('webhooks').where({ tenant_id: tenantId, id }).delete()) > 0;
  }

  /** Active registrations of the tenant wanting `event` (exactly, by its family "work_task.*", or "*") about `repo`. */
  async matching(tenantId: string, event: string, repo: string | null): Promise<RegistrationRow[]> {
    const rows = await this.db<RegistrationRow>('webhooks').where({ tenant_id: tenantId });
    const family = `${event.split('.')[0]}.*`;
    return rows.filter((r) => Boolean(r.active) && (JSON.parse(r.events) as string[]).some((e) => e === event || e === family || e === '*') && (!r.repo || r.repo === repo));
  }

  async enqueue(registration: RegistrationRow, event: string, payload: unknown, now: number): Promise<void> {
    const at = new Date(now).toISOString();
    await this.db('webhook_deliveries').insert({
      id: randomUUID(), tenant_id: registration.tenant_id, webhook_id: registration.id, event, payload: JSON.stringify(payload), status: 'pending',
      attempts: 0, next_attempt_at: now, created_at: at, updated_at: at,
    });
  }

  async deliveries(tenantId: string, webhookId: string | undefined, limit: number) {
    const q = this.db<DeliveryRow>('webhook_deliveries').where({ tenant_id: tenantId });
    if (webhookId) q.andWhere({ webhook_id: webhookId });
    return (await q.orderBy('created_at', 'desc').orderBy('id').limit(limit)).map(toDelivery);
  }

  due(now: number, limit: number): Promise<DeliveryRow[]> {
    return this.db<DeliveryRow>('webhook_deliveries').where({ status: 'pending' }).andWhere('next_attempt_at', '<=', now).orderBy('next_attempt_at').limit(limit);
  }

  async pending(): Promise<boolean> {
    return (await this.db('webhook_deliveries').where({ status: 'pending' }).first()) !== undefined;
  }

  async record(id: string, patch: Partial<DeliveryRow>): Promise<void> {
    await this.db('webhook_deliveries').where({ id }).update({ ...patch, updated_at: new Date().toISOString() });
  }
}
