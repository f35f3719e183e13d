import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_a2a',
    async up(db) {
      // Tasks this server runs for A2A clients: each is one session of one of its agents.
      await db.schema.createTable('a2a_tasks', (t) => {
        t.string('tenant_id').notNullable();
        t.string('id').notNullable();
        t.string('context_id').notNullable();
        t.string('agent_id').notNullable();
        t.string('session_id');
        t.string('state').notNullable();
        t.text('input').notNullable();
        t.text('result');
        t.text('error');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.primary(['tenant_id', 'id']);
      });
      // Other servers this tenant talks to; api_key_sealed is sealed (sdk/sealed.ts).
      await db.schema.createTable('a2a_remotes', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('name').notNullable();
        t.string('url').notNullable();
        t.text('api_key_sealed');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.unique(['tenant_id', 'name']);
        t.index(['tenant_id', 'url']);
      });
    },
  },
  {
    name: '002_a2a_task_context',
    async up(db) {
      // A task of a context another task already had continues that task's session: its answer starts
      // after `after_seq` (the session's last event before the task's message), not at the start.
      await db.schema.alterTable('a2a_tasks', (t) => {
        t.integer('after_seq').notNullable().defaultTo(0);
        t.index(['tenant_id', 'context_id', 'agent_id']);
      });
    },
  },
  {
    name: '003_a2a_push_configs',
    async up(db) {
      // Where a task's updates are pushed (A2A push notifications), per tenant and task; the credentials
      // of an `authentication` are sealed (sdk/sealed.ts). `delivered` is the last state pushed.
      await db.schema.createTable('a2a_push_configs', (t) => {
        t.string('tenant_id').notNullable();
        t.string('task_id').notNullable();
        t.string('id').notNullable();
        t.string('version').notNullable();
        t.text('url').notNullable();
        t.text('token');
        t.string('auth_scheme');
        t.text('auth_credentials_sealed');
        t.string('delivered');
        t.string('created_at').notNullable();
        t.primary(['tenant_id', 'task_id', 'id']);
      });
      // ListTasks: a tenant's tasks, newest change first.
      await db.schema.alterTable('a2a_tasks', (t) => t.index(['tenant_id', 'updated_at']));
    },
  },
];
