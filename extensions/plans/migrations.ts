import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_plans',
    async up(db) {
      // A tenant without a row is on the free plan, with no overrides and no billing state.
      await db.schema.createTable('tenant_plans', (t) => {
        t.string('tenant_id').primary();
        t.string('plan').notNullable();
        t.text('limits').notNullable().defaultTo('{}');
        t.string('billing_status').notNullable().defaultTo('none');
        t.string('updated_at').notNullable();
      });
      // The server's own tenant (the kernel's `default`, which keys without a tenant act as) is on enterprise.
      await db('tenant_plans').insert({ tenant_id: 'default', plan: 'enterprise', updated_at: new Date().toISOString() });
      // Whether the plans the kernel's tenants table held before this extension were taken over.
      await db.schema.createTable('handover', (t) => {
        t.string('name').primary();
        t.string('at').notNullable();
      });
    },
  },
];
