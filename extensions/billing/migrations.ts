import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_billing',
    async up(db) {
      // One subscription per tenant: what Stripe last told us, and the time of the event that told it
      // (so an older event arriving late changes nothing).
      await db.schema.createTable('subscriptions', (t) => {
        t.string('tenant_id').primary();
        t.string('customer_id').notNullable().unique();
        t.string('subscription_id').unique();
        t.string('plan').notNullable();
        t.string('status').notNullable();
        t.string('plan_item_id');
        t.string('metered_item_id');
        t.string('current_period_start');
        t.string('current_period_end');
        t.boolean('cancel_at_period_end').notNullable().defaultTo(false);
        t.string('canceled_at');
        t.string('past_due_since');
        t.bigInteger('last_event_at').notNullable().defaultTo(0);
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
      });
      // Every webhook event by its id: a replayed delivery is recognised and applied no second time.
      await db.schema.createTable('webhook_events', (t) => {
        t.string('id').primary();
        t.string('type').notNullable();
        t.string('tenant_id');
        t.bigInteger('created').notNullable();
        t.string('outcome').notNullable();
        t.string('received_at').notNullable();
      });
      // Usage reported to Stripe as meter events; the identifier (also the Idempotency-Key) names the
      // cumulative total reported, so reporting the same total twice is one event.
      await db.schema.createTable('usage_records', (t) => {
        t.string('identifier').primary();
        t.string('tenant_id').notNullable();
        t.string('period_start').notNullable();
        t.bigInteger('micro_units').notNullable();
        t.bigInteger('cumulative').notNullable();
        t.string('reported_at').notNullable();
        t.index(['tenant_id', 'period_start']);
      });
    },
  },
];
