import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_messaging',
    async up(db) {
      // A thread binds a conversation to the recipient's session; `depth` is how many agent→agent hops
      // led to that session (1 when a person or a top-level session sent the first message).
      await db.schema.createTable('message_threads', (t) => {
        t.string('tenant_id').notNullable();
        t.string('id').notNullable();
        t.string('from_agent_id');
        t.string('to_agent_id').notNullable();
        t.string('session_id').notNullable();
        t.integer('depth').notNullable();
        t.string('created_at').notNullable();
        t.primary(['tenant_id', 'id']);
        t.index(['tenant_id', 'session_id']);
      });
      // What a session has sent, for the loop limits (no content: the messages live in agents).
      await db.schema.createTable('message_sends', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('session_id').notNullable();
        t.string('to_agent_id').notNullable();
        t.bigInteger('sent_at').notNullable();
        t.index(['tenant_id', 'session_id']);
      });
      await db.schema.createTable('messaging_settings', (t) => {
        t.string('tenant_id').primary();
        t.text('settings').notNullable();
        t.string('updated_at').notNullable();
      });
    },
  },
  {
    name: '002_message_ledger',
    async up(db) {
      // The loop limits count per sender on every path, not only per session: `scope` is "session:<id>"
      // (an agent sending from its session), "agent:<id>" (an agent named without its session) or
      // "caller:<actor>" (a person or script). Sends of 001 were all from sessions.
      await db.schema.createTable('message_ledger', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('scope').notNullable();
        t.string('to_agent_id').notNullable();
        t.bigInteger('sent_at').notNullable();
        t.index(['tenant_id', 'scope', 'sent_at']);
      });
      await db.raw("INSERT INTO message_ledger (id, tenant_id, scope, to_agent_id, sent_at) SELECT id, tenant_id, 'session:' || session_id, to_agent_id, sent_at FROM message_sends");
      await db.schema.dropTable('message_sends');
    },
  },
];
