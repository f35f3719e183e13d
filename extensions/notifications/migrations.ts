import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_notifications',
    async up(db) {
      // agent_id null: a channel of the whole tenant. secrets: sealed JSON (AES-256-GCM), never returned.
      await db.schema.createTable('channels', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id');
        t.string('type').notNullable();
        t.string('name').notNullable();
        t.text('config').notNullable().defaultTo('{}');
        t.text('secrets');
        t.boolean('enabled').notNullable().defaultTo(true);
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.index(['tenant_id', 'agent_id']);
      });
      await db.schema.createTable('notifications', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id');
        t.string('session_id');
        t.text('message').notNullable();
        t.string('priority').notNullable();
        t.string('created_at').notNullable();
        t.index(['tenant_id', 'created_at']);
      });
      await db.schema.createTable('questions', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id');
        t.string('session_id');
        t.text('question').notNullable();
        t.text('options').notNullable().defaultTo('[]');
        t.string('status').notNullable();
        t.text('answer');
        t.string('answered_via');
        t.string('responder');
        t.string('created_at').notNullable();
        t.string('expires_at').notNullable();
        t.string('answered_at');
        t.index(['tenant_id', 'status']);
        t.index(['status', 'expires_at']);
      });
      // One row per message to send: a notification's delivery, a question's dispatch, or a question_closed.
      await db.schema.createTable('deliveries', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('notification_id');
        t.string('question_id');
        t.string('channel_id').notNullable();
        t.string('channel_type').notNullable();
        t.string('kind').notNullable();
        t.text('payload').notNullable();
        t.string('status').notNullable();
        t.integer('attempts').notNullable().defaultTo(0);
        t.string('next_attempt_at');
        t.text('last_error');
        t.string('external_id');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.string('delivered_at');
        t.index(['status', 'next_attempt_at']);
        t.index(['tenant_id', 'notification_id']);
        t.index(['question_id']);
      });
    },
  },
  {
    name: '002_close_once',
    async up(db) {
      // Set by the one closer of a shown dispatch (the answer, the expiry, or a late delivery): a
      // question_closed is queued once per dispatch.
      await db.schema.alterTable('deliveries', (t) => {
        t.boolean('close_queued').notNullable().defaultTo(false);
        // The bridge took the message into its own outbox (it answered 202): it goes out even if the
        // question closes meanwhile, so it is followed until delivered, then closed.
        t.boolean('upstream_queued').notNullable().defaultTo(false);
      });
    },
  },
];
