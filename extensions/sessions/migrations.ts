import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_sessions',
    async up(db) {
      await db.schema.createTable('sessions', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.string('project_id').nullable();
        t.string('name').notNullable();
        t.string('source').notNullable();
        t.string('status').notNullable();
        t.string('status_code').nullable();
        t.text('status_reason').nullable();
        t.string('provider').notNullable();
        t.string('model').notNullable();
        t.text('working_dir').notNullable();
        t.float('timeout_minutes').notNullable();
        t.string('timeout_at').nullable();
        t.bigInteger('timeout_remaining_ms').nullable();
        t.integer('turns_per_context').notNullable();
        t.integer('approval_timeout_ms').notNullable();
        t.integer('resume_unit_ms').notNullable();
        t.integer('turns').notNullable().defaultTo(0);
        t.integer('context_resets').notNullable().defaultTo(0);
        t.bigInteger('cost_micro').notNullable().defaultTo(0);
        t.bigInteger('input_tokens').notNullable().defaultTo(0);
        t.bigInteger('output_tokens').notNullable().defaultTo(0);
        t.text('pending_inputs').notNullable().defaultTo('[]');
        t.boolean('continuing').notNullable().defaultTo(false);
        t.integer('resume_attempts').notNullable().defaultTo(0);
        t.string('next_resume_at').nullable();
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.string('started_at').nullable();
        t.string('ended_at').nullable();
        t.index(['tenant_id', 'created_at']);
        t.index(['tenant_id', 'project_id']);
        t.index(['status']);
      });
      await db.schema.createTable('session_events', (t) => {
        t.string('session_id').notNullable().references('sessions.id').onDelete('CASCADE');
        t.integer('seq').notNullable();
        t.string('type').notNullable();
        t.text('data').notNullable();
        t.string('created_at').notNullable();
        t.primary(['session_id', 'seq']);
      });
      await db.schema.createTable('session_messages', (t) => {
        t.increments('id');
        t.string('session_id').notNullable().references('sessions.id').onDelete('CASCADE');
        t.integer('seq').notNullable();
        t.integer('turn').notNullable();
        t.string('role').notNullable();
        t.text('content').notNullable();
        t.text('meta').nullable();
        t.string('created_at').notNullable();
        t.index(['session_id', 'seq']);
      });
      await db.schema.createTable('escalations', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('session_id').notNullable().references('sessions.id').onDelete('CASCADE');
        t.string('agent_id').notNullable();
        t.string('tool_name').notNullable();
        t.string('tool_kind').notNullable();
        t.text('input').notNullable();
        t.string('input_hash').notNullable();
        t.string('reason').notNullable();
        t.string('status').notNullable();
        t.string('resolved_by').nullable();
        t.boolean('grant_used').notNullable().defaultTo(false);
        t.string('created_at').notNullable();
        t.string('resolved_at').nullable();
        t.index(['tenant_id', 'status', 'created_at']);
        t.index(['session_id', 'tool_name', 'input_hash']);
      });
    },
  },
];
