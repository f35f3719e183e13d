import type { Migration } from '../../protocol/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_codehost',
    async up(db) {
      await db.schema.createTable('repo_blocklist', (t) => {
        t.string('tenant_id').notNullable();
        t.string('repo').notNullable();
        t.text('reason').notNullable().defaultTo('');
        t.string('created_at').notNullable();
        t.primary(['tenant_id', 'repo']);
      });
      await db.schema.createTable('vcshost_allowlist', (t) => {
        t.string('tenant_id').notNullable();
        t.string('username').notNullable();
        t.text('label').notNullable().defaultTo('');
        t.string('agent_id');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.primary(['tenant_id', 'username']);
      });
      // Delivery ids of inbound webhooks already taken: a replay is refused.
      await db.schema.createTable('inbound_deliveries', (t) => {
        t.string('delivery_id').primary();
        t.string('event').notNullable();
        t.text('outcome').notNullable();
        t.string('received_at').notNullable();
      });
    },
  },
];
