import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_chainchat',
    async up(db) {
      // A tenant's Algorand account: the mnemonic sealed, the network, the last round read.
      await db.schema.createTable('cc_accounts', (t) => {
        t.string('tenant_id').primary();
        t.string('address').notNullable();
        t.text('mnemonic_enc').notNullable();
        t.string('network').notNullable();
        t.bigInteger('last_round').notNullable().defaultTo(0);
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
      });
      // Pre-shared keys: the tenant's exchange keys (contact_id NULL; one current, rotated ones until
      // expires_at) and each PSK contact's own key.
      await db.schema.createTable('cc_keys', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('contact_id');
        t.string('key_id').notNullable();
        t.text('psk_enc').notNullable();
        t.string('created_at').notNullable();
        t.string('expires_at');
        t.index(['tenant_id', 'key_id']);
        t.index(['tenant_id', 'contact_id']);
      });
      await db.schema.createTable('cc_contacts', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('name').notNullable();
        // Bound on the contact's first message when not given.
        t.string('address');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.index(['tenant_id', 'name']);
      });
      await db.schema.createTable('cc_allowlist', (t) => {
        t.string('tenant_id').notNullable();
        t.string('address').notNullable();
        t.string('label').notNullable().defaultTo('');
        t.boolean('owner').notNullable().defaultTo(false);
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.primary(['tenant_id', 'address']);
      });
      // A participant (a conversation): its agent and keep-alive session, its X25519 key (first seen,
      // then kept), its credits.
      await db.schema.createTable('cc_participants', (t) => {
        t.string('tenant_id').notNullable();
        t.string('address').notNullable();
        t.string('agent_id');
        t.string('session_id');
        t.string('x25519_public');
        // How replies are sealed: "psk:<cc_keys id>" (the key it last wrote with) or "x25519".
        t.string('key_ref');
        t.bigInteger('credits').notNullable();
        t.string('created_at').notNullable();
        t.string('last_message_at').notNullable();
        t.primary(['tenant_id', 'address']);
        t.index(['tenant_id', 'last_message_at']);
      });
      await db.schema.createTable('cc_messages', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('participant').notNullable();
        // inbound, outbound, refused
        t.string('direction').notNullable();
        t.text('content_enc');
        t.text('txids').notNullable();
        t.string('created_at').notNullable();
        t.index(['tenant_id', 'participant', 'created_at']);
      });
      await db.schema.createTable('cc_seen', (t) => {
        t.string('tenant_id').notNullable();
        t.string('txid').notNullable();
        t.string('seen_at').notNullable();
        t.primary(['tenant_id', 'txid']);
      });
      await db.schema.createTable('cc_chunks', (t) => {
        t.string('tenant_id').notNullable();
        t.string('sender').notNullable();
        t.string('msg_id').notNullable();
        t.integer('idx').notNullable();
        t.integer('total').notNullable();
        // The note as it came (ciphertext).
        t.text('note').notNullable();
        t.string('txid').notNullable();
        t.string('created_at').notNullable();
        t.primary(['tenant_id', 'sender', 'msg_id', 'idx']);
      });
      // Approvals and owner questions sent on-chain, by the short id a reply names.
      await db.schema.createTable('cc_prompts', (t) => {
        t.string('tenant_id').notNullable();
        t.string('short_id').notNullable();
        t.string('kind').notNullable();
        t.string('ref_id').notNullable();
        t.string('address').notNullable();
        t.string('created_at').notNullable();
        t.primary(['tenant_id', 'short_id']);
      });
    },
  },
  {
    // Agent-to-agent messages waiting to go on-chain (sealed), and the txid once sent until the agents
    // extension has recorded it.
    name: '002_wallets_agent_message_outbox',
    async up(db) {
      await db.schema.createTable('cc_agent_messages', (t) => {
        t.string('tenant_id').notNullable();
        t.string('message_id').notNullable();
        t.text('body_enc').notNullable();
        t.string('txid');
        t.integer('attempts').notNullable().defaultTo(0);
        t.text('last_error');
        t.string('created_at').notNullable();
        t.primary(['tenant_id', 'message_id']);
        t.index(['tenant_id', 'created_at']);
      });
    },
  },
];
