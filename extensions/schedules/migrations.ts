import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_schedules',
    async up(db) {
      await db.schema.createTable('schedules', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id');
        t.string('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.string('cron');
        t.string('timezone').notNullable().defaultTo('UTC');
        t.integer('interval_seconds');
        t.text('action').notNullable();
        t.string('approval').notNullable();
        t.string('missed_policy').notNullable();
        t.string('status').notNullable();
        t.string('paused_reason');
        t.integer('consecutive_failures').notNullable().defaultTo(0);
        // ISO 8601 UTC strings of one fixed shape, so they compare in SQL as times do.
        t.string('next_run_at');
        t.string('last_run_at');
        t.string('created_by').notNullable();
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.index(['tenant_id', 'created_at']);
        t.index(['status', 'next_run_at']);
      });
      await db.schema.createTable('schedule_executions', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('schedule_id').notNullable();
        // One execution per (schedule, due time): a tick and a trigger that race for it insert the same key.
        t.string('run_key').notNullable().unique();
        t.string('due_at').notNullable();
        t.string('trigger').notNullable();
        t.string('status').notNullable();
        t.text('action').notNullable();
        t.text('result');
        t.string('error_code');
        t.text('error');
        t.string('session_id');
        t.bigInteger('cost_micro').notNullable().defaultTo(0);
        t.integer('duration_ms');
        t.string('claimed_by');
        t.string('resolved_by');
        t.string('created_at').notNullable();
        t.string('started_at');
        t.string('finished_at');
        t.string('updated_at').notNullable();
        t.index(['tenant_id', 'created_at']);
        t.index(['schedule_id', 'created_at']);
        t.index(['status', 'created_at']);
      });
      await db.schema.createTable('scheduler_state', (t) => {
        t.string('key').primary();
        t.text('value').notNullable();
      });
    },
  },
  {
    // Approval windows (a run waiting longer than its window expires), and the record an execution
    // started in another extension (a council launch, a work task, a workflow run), to stop it on cancel.
    name: '002_approval_expiry_and_effects',
    async up(db) {
      await db.schema.alterTable('schedules', (t) => {
        t.integer('approval_window_seconds');
      });
      await db.schema.alterTable('schedule_executions', (t) => {
        t.string('expires_at');
        t.string('effect_kind');
        t.string('effect_id');
        t.index(['status', 'expires_at']);
      });
    },
  },
  {
    // Schedules with a list of actions: each action's outcome in an execution (the `action` column
    // holds one action as before, or the list's array).
    name: '003_action_results',
    async up(db) {
      await db.schema.alterTable('schedule_executions', (t) => {
        t.text('action_results');
      });
    },
  },
];
