import { createChannelTables } from './channel.js';
import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_codehost',
    async up(db) {
      await db.schema.createTable('repo_blocklist', (t) => {
        t.string('tenant_id').notNullable();
        t.string('repo').notNullable();
        t.text('reason').notNullable().defaultTo('');
        t.string('created_at').notNullable();
        t.primary(['tenant_id', 'repo']);
      });
      await db.schema.createTable('vcshost_allowlist', (t) => {
        t.string('tenant_id').notNullable();
        t.string('username').notNullable();
        t.text('label').notNullable().defaultTo('');
        t.string('agent_id');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.primary(['tenant_id', 'username']);
      });
      // Delivery ids of inbound webhooks already taken: a replay is refused.
      await db.schema.createTable('inbound_deliveries', (t) => {
        t.string('delivery_id').primary();
        t.string('event').notNullable();
        t.text('outcome').notNullable();
        t.string('received_at').notNullable();
      });
    },
  },
  {
    name: '002_outbound_webhooks',
    async up(db) {
      await db.schema.createTable('webhooks', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.text('url').notNullable();
        t.text('events').notNullable();
        t.string('repo');
        t.text('secret_sealed').notNullable();
        t.boolean('active').notNullable().defaultTo(true);
        t.text('description').notNullable().defaultTo('');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.index(['tenant_id', 'created_at']);
      });
      await db.schema.createTable('webhook_deliveries', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
        t.string('event').notNullable();
        t.text('payload').notNullable();
        t.string('status').notNullable();
        t.integer('attempts').notNullable().defaultTo(0);
        t.bigInteger('next_attempt_at').notNullable();
        t.integer('response_status');
        t.text('last_error');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.string('delivered_at');
        t.index(['status', 'next_attempt_at']);
        t.index(['tenant_id', 'created_at']);
        t.index(['webhook_id', 'created_at']);
      });
    },
  },
  {
    name: '003_mention_polling',
    async up(db) {
      await db.schema.createTable('mention_polls', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('repo').notNullable();
        t.integer('interval_seconds').notNullable();
        t.boolean('active').notNullable().defaultTo(true);
        t.text('etag');
        t.string('since');
        t.bigInteger('next_poll_at').notNullable();
        t.string('last_polled_at');
        t.integer('last_status');
        t.text('last_error');
        t.integer('polls').notNullable().defaultTo(0);
        t.integer('not_modified').notNullable().defaultTo(0);
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.unique(['tenant_id', 'repo']);
        t.index(['active', 'next_poll_at']);
      });
      // Each comment once per config, whatever how often a poll sees it: the dedup key.
      await db.schema.createTable('mention_seen', (t) => {
        t.string('config_id').notNullable().references('mention_polls.id').onDelete('CASCADE');
        t.string('comment_id').notNullable();
        t.string('sender').notNullable();
        t.text('url').notNullable();
        t.string('outcome').notNullable();
        t.text('reason');
        t.string('session_id');
        t.string('seen_at').notNullable();
        t.primary(['config_id', 'comment_id']);
      });
    },
  },
  { name: '004_notification_channel', up: createChannelTables },
];
