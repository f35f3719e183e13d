import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_sandbox',
    async up(db) {
      await db.schema.createTable('sandbox_policies', (t) => {
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.text('policy').notNullable();
        t.string('updated_at').notNullable();
        t.primary(['tenant_id', 'agent_id']);
      });
      await db.schema.createTable('sandbox_assignments', (t) => {
        t.string('tenant_id').notNullable();
        t.string('session_id').notNullable();
        t.string('agent_id').notNullable();
        t.string('sandbox_id').notNullable();
        t.boolean('warm').notNullable();
        t.string('assigned_at').notNullable();
        t.primary(['tenant_id', 'session_id']);
      });
    },
  },
];
