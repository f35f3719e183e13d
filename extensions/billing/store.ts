// The billing extension's records: each tenant's subscription as Stripe last described it, the webhook
// events seen, and the usage reported.
import type { Knex } from 'knex';
import { num } from './numbers.js';

export interface SubscriptionRow {
  tenant_id: string;
  customer_id: string;
  subscription_id: string | null;
  plan: string;
  status: string;
  plan_item_id: string | null;
  metered_item_id: string | null;
  current_period_start: string | null;
  current_period_end: string | null;
  cancel_at_period_end: boolean | number;
  canceled_at: string | null;
  past_due_since: string | null;
  last_event_at: number | string;
  created_at: string;
  updated_at: string;
}

export class BillingStore {
  constructor(readonly db: Knex) {}

  async get(tenantId: string): Promise<SubscriptionRow | undefined> {
    return this.db<SubscriptionRow>('subscriptions').where({ tenant_id: tenantId }).first();
  }

  async byCustomer(customerId: string): Promise<SubscriptionRow | undefined> {
    return this.db<SubscriptionRow>('subscriptions').where({ customer_id: customerId }).first();
  }

  async save(row: SubscriptionRow): Promise<void> {
    await this.db('subscriptions').insert(row).onConflict('tenant_id').merge();
  }

  async patch(tenantId: string, fields: Partial<SubscriptionRow>): Promise<void> {
    await this.db('subscriptions').where({ tenant_id: tenantId }).update({ ...fields, updated_at: new Date().toISOString() });
  }

  async reported(tenantId: string, periodStart: string): Promise<number> {
    const row = await this.db('usage_records').where({ tenant_id: tenantId, period_start: periodStart }).max<{ top: number | string | null }[]>({ top: 'cumulative' }).first();
    return num(row?.top);
  }

  async records(tenantId: string): Promise<Array<{ identifier: string; periodStart: string; microUnits: number; cumulative: number; reportedAt: string }>> {
    const rows = await this.db('usage_records').where({ tenant_id: tenantId }).orderBy('reported_at', 'desc').limit(100);
    return rows.map((r) => ({ identifier: r.identifier, periodStart: r.period_start, microUnits: num(r.micro_units), cumulative: num(r.cumulative), reportedAt: r.reported_at }));
  }

  /** True when it was recorded now; false when a report of that total was recorded already. */
  async recordUsage(record: { identifier: string; tenant_id: string; period_start: string; micro_units: number; cumulative: number }): Promise<boolean> {
    const inserted = await this.db('usage_records').insert({ ...record, reported_at: new Date().toISOString() }).onConflict('identifier').ignore().returning('identifier');
    return inserted.length > 0;
  }
}

export function subscriptionView(row: SubscriptionRow, readOnlyAt: string | null) {
  return {
    tenantId: row.tenant_id,
    plan: row.plan,
    status: row.status,
    customerId: row.customer_id,
    subscriptionId: row.subscription_id,
    currentPeriodStart: row.current_period_start,
    currentPeriodEnd: row.current_period_end,
    cancelAtPeriodEnd: Boolean(row.cancel_at_period_end),
    canceledAt: row.canceled_at,
    pastDueSince: row.past_due_since,
    readOnlyAt,
    updatedAt: row.updated_at,
  };
}
