import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_reputation',
    async up(db) {
      await db.schema.createTable('reputation_events', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.string('kind').notNullable();
        t.float('impact').notNullable();
        t.string('source').notNullable();
        // What the event is about (a session, a work task, a review): a later event about the same
        // subject replaces it. Null for events recorded by hand, which never replace each other.
        t.string('subject');
        t.text('detail').notNullable().defaultTo('{}');
        t.string('occurred_at').notNullable();
        t.string('recorded_at').notNullable();
        t.unique(['tenant_id', 'subject']);
        t.index(['tenant_id', 'agent_id', 'occurred_at']);
      });
      await db.schema.createTable('reputation_scores', (t) => {
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.float('score').notNullable();
        t.text('components').notNullable();
        t.integer('event_count').notNullable();
        t.string('computed_at').notNullable();
        // Set when an event about the agent is recorded after the score was computed.
        t.boolean('stale').notNullable().defaultTo(false);
        t.primary(['tenant_id', 'agent_id']);
      });
      await db.schema.createTable('identities', (t) => {
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.string('tier').notNullable();
        t.text('evidence').notNullable().defaultTo('');
        t.string('updated_by').notNullable();
        t.string('updated_at').notNullable();
        t.primary(['tenant_id', 'agent_id']);
      });
      await db.schema.createTable('attestations', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.text('envelope').notNullable();
        t.string('issued_at').notNullable();
        t.string('expires_at').notNullable();
        t.index(['tenant_id', 'agent_id', 'issued_at']);
      });
    },
  },
];
