import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_outcomes',
    async up(db) {
      // One row per outcome heard on the bus: a session that ended, an approval decided, a council that
      // concluded, a work task that merged or failed. `value` is 1 for a success (completed, allowed,
      // merged) and 0 for a failure; for a council, its agreement (0–1).
      await db.schema.createTable('outcomes', (t) => {
        t.string('tenant_id').notNullable();
        t.string('kind').notNullable();
        t.string('subject_id').notNullable();
        t.string('agent_id');
        t.string('label').notNullable().defaultTo('');
        t.double('value').notNullable();
        t.string('at').notNullable();
        t.primary(['tenant_id', 'kind', 'subject_id']);
        t.index(['tenant_id', 'at']);
      });
    },
  },
  {
    // Each agent's opt-in to the outcome context in its prompts (settings.ts).
    name: '002_agent_settings',
    async up(db) {
      await db.schema.createTable('feedback_agent_settings', (t) => {
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.boolean('prompt_context').notNullable().defaultTo(false);
        t.string('updated_at').notNullable();
        t.primary(['tenant_id', 'agent_id']);
      });
    },
  },
];
