import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_councils',
    async up(db) {
      await db.schema.createTable('councils', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.text('members').notNullable();
        t.string('chair_id');
        t.string('synthesizer_id');
        t.integer('rounds').notNullable();
        t.text('question_template').notNullable();
        t.integer('quorum').notNullable();
        t.integer('member_timeout_seconds').notNullable();
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.index(['tenant_id', 'created_at']);
      });
      await db.schema.createTable('council_launches', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('council_id').notNullable();
        t.text('prompt').notNullable();
        // The council as it was at launch: later edits do not change a running launch.
        t.text('config').notNullable();
        t.string('stage').notNullable();
        // running: the stage's work is under way; waiting: done, and the next stage starts by hand.
        t.string('stage_state').notNullable();
        t.boolean('auto').notNullable();
        t.integer('round').notNullable().defaultTo(0);
        t.string('synthesizer_id');
        t.string('synthesis_session_id');
        // The event seq the synthesizer's answer follows, while it is awaited.
        t.integer('synthesis_after');
        t.text('result');
        t.text('error');
        t.integer('seq').notNullable().defaultTo(0);
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.string('finished_at');
        t.index(['tenant_id', 'created_at']);
        t.index(['tenant_id', 'council_id', 'created_at']);
        t.index(['stage']);
      });
      await db.schema.createTable('council_launch_members', (t) => {
        t.string('launch_id').notNullable().references('council_launches.id').onDelete('CASCADE');
        t.string('agent_id').notNullable();
        t.integer('position').notNullable();
        t.string('name').notNullable();
        t.string('status').notNullable();
        t.text('error');
        t.string('session_id');
        // The question asked and not yet answered: which stage and round, and the event seq its answer follows.
        t.string('pending_step');
        t.integer('pending_after');
        t.primary(['launch_id', 'agent_id']);
      });
      await db.schema.createTable('council_events', (t) => {
        t.string('launch_id').notNullable().references('council_launches.id').onDelete('CASCADE');
        t.integer('seq').notNullable();
        t.string('type').notNullable();
        t.string('stage').notNullable();
        t.string('level');
        t.string('agent_id');
        t.integer('round');
        t.string('kind');
        t.text('content').notNullable();
        t.string('vote');
        t.text('reason');
        t.string('at').notNullable();
        t.primary(['launch_id', 'seq']);
        t.index(['launch_id', 'type', 'seq']);
      });
    },
  },
  {
    // A launch asked for with an idempotency key is made once per tenant and key: asking again answers it.
    name: '002_launch_idempotency',
    async up(db) {
      await db.schema.alterTable('council_launches', (t) => {
        t.string('idempotency_key');
        t.unique(['tenant_id', 'idempotency_key']);
      });
    },
  },
];
