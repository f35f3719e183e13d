import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_sessions_and_spending',
    async up(db) {
      await db.schema.createTable('sessions', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id');
        t.string('project_id');
        t.string('source').notNullable();
        t.string('status').notNullable();
        t.bigInteger('cost').notNullable().defaultTo(0);
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.index(['tenant_id']);
      });
      await db.schema.createTable('daily_spending', (t) => {
        t.string('tenant_id').notNullable();
        t.string('date').notNullable();
        t.string('agent_id').notNullable();
        t.bigInteger('total').notNullable();
        t.primary(['tenant_id', 'date', 'agent_id']);
      });
    },
  },
];
