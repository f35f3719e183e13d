import type { Migration } from '../../lib/storage.js';
import { createOutboxTable } from '../../sdk/bridge/outbox.js';

export const migrations: Migration[] = [
  {
    name: '001_telegram',
    async up(db) {
      // One bot per tenant. secrets: sealed JSON {botToken, webhookSecret} (AES-256-GCM), never returned.
      await db.schema.createTable('bots', (t) => {
        t.string('tenant_id').primary();
        t.text('secrets').notNullable();
        t.string('mode').notNullable();
        t.text('api_root');
        t.text('webhook_url');
        t.string('default_agent_id');
        t.string('bot_username');
        t.bigInteger('poll_offset').notNullable().defaultTo(0);
        t.string('updated_at').notNullable();
      });
      // A chat's agent and its current session: a conversation survives restarts.
      await db.schema.createTable('chats', (t) => {
        t.string('tenant_id').notNullable();
        t.string('chat_id').notNullable();
        t.string('agent_id');
        t.string('session_id');
        t.string('title').notNullable().defaultTo('');
        t.string('last_activity_at').notNullable();
        t.primary(['tenant_id', 'chat_id']);
      });
      // Update ids already handled: a delivery seen twice is ignored (pruned after a while).
      await db.schema.createTable('updates_seen', (t) => {
        t.string('tenant_id').notNullable();
        t.bigInteger('update_id').notNullable();
        t.string('seen_at').notNullable();
        t.primary(['tenant_id', 'update_id']);
        t.index(['seen_at']);
      });
      // Messages with buttons we sent: an owner question or an approval, so a press or a reply finds its target.
      await db.schema.createTable('prompts', (t) => {
        t.string('tenant_id').notNullable();
        t.string('chat_id').notNullable();
        t.bigInteger('message_id').notNullable();
        t.string('kind').notNullable();
        t.string('ref_id').notNullable();
        t.text('text').notNullable();
        t.text('options').notNullable().defaultTo('[]');
        t.string('created_at').notNullable();
        t.primary(['tenant_id', 'chat_id', 'message_id']);
        t.index(['tenant_id', 'kind', 'ref_id']);
      });
    },
  },
  { name: '002_outbox', up: createOutboxTable },
];
