import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_work_tasks',
    async up(db) {
      await db.schema.createTable('work_tasks', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.string('project_id').notNullable();
        t.text('description').notNullable();
        t.string('status').notNullable();
        t.text('repo_dir').notNullable();
        t.string('repo_slug');
        t.text('branch');
        t.string('base_branch');
        t.text('worktree_dir');
        t.string('work_project_id');
        t.string('session_id');
        t.integer('session_after');
        t.integer('iteration').notNullable().defaultTo(0);
        t.text('validation');
        t.text('pr_url');
        t.integer('pr_number');
        t.string('pr_state');
        t.text('failure_reason');
        t.text('summary');
        t.string('created_by').notNullable();
        // Which process drives the task and when it last said so: a stale heartbeat frees it for another.
        t.string('runner');
        t.bigInteger('heartbeat_at');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.string('completed_at');
        t.index(['tenant_id', 'created_at']);
        t.index(['status']);
        t.index(['session_id']);
      });
      await db.schema.createTable('work_task_steps', (t) => {
        t.increments('seq').primary();
        t.string('task_id').notNullable().references('work_tasks.id').onDelete('CASCADE');
        t.string('status').notNullable();
        t.text('message').notNullable();
        t.string('at').notNullable();
        t.index(['task_id', 'seq']);
      });
      // One running task per repository: the lock names its task and expires unless renewed.
      await db.schema.createTable('repo_locks', (t) => {
        t.string('repo').primary();
        t.string('task_id').notNullable();
        t.bigInteger('expires_at').notNullable();
      });
    },
  },
  {
    // A task created with an idempotency key is made once per tenant and key: asking again answers it.
    name: '002_task_idempotency',
    async up(db) {
      await db.schema.alterTable('work_tasks', (t) => {
        t.string('idempotency_key');
        t.unique(['tenant_id', 'idempotency_key']);
      });
    },
  },
];
