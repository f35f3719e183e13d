import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_exams',
    async up(db) {
      await db.schema.createTable('exam_runs', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.text('categories').notNullable();
        // running → completed | failed (the run itself could not go on; a task that fails is graded, not this)
        t.string('status').notNullable();
        t.integer('score');
        t.integer('passed').notNullable().defaultTo(0);
        t.integer('failed').notNullable().defaultTo(0);
        t.integer('skipped').notNullable().defaultTo(0);
        t.text('error');
        t.string('created_at').notNullable();
        t.string('finished_at');
        t.index(['tenant_id', 'created_at']);
        t.index(['tenant_id', 'agent_id']);
      });
      await db.schema.createTable('exam_results', (t) => {
        t.string('run_id').notNullable().references('exam_runs.id').onDelete('CASCADE');
        t.string('task_id').notNullable();
        t.string('category').notNullable();
        t.string('status').notNullable();
        t.text('checks').notNullable();
        t.text('answers').notNullable();
        t.text('tool_calls').notNullable();
        t.string('session_id');
        t.text('reason');
        t.integer('duration_ms').notNullable();
        t.primary(['run_id', 'task_id']);
      });
    },
  },
  {
    name: '002_run_claims',
    async up(db) {
      // Which process sits a running exam, and when it last said it still does: with instances sharing a
      // PostgreSQL database, a start fails only the runs no live process holds (not another's in progress).
      await db.schema.alterTable('exam_runs', (t) => {
        t.string('runner');
        t.bigInteger('heartbeat_at');
      });
    },
  },
];
