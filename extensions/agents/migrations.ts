import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_agents',
    async up(db) {
      await db.schema.createTable('agents', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.string('model').notNullable();
        t.string('provider').notNullable();
        t.text('system_prompt').notNullable().defaultTo('');
        t.string('permission_mode').notNullable();
        t.string('wallet').notNullable().unique();
        t.text('mcp_tool_permissions').notNullable().defaultTo('[]');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.unique(['tenant_id', 'name']);
        t.index(['tenant_id', 'created_at']);
      });
      await db.schema.createTable('personas', (t) => {
        t.string('agent_id').primary().references('agents.id').onDelete('CASCADE');
        t.string('archetype').notNullable();
        t.text('traits').notNullable().defaultTo('[]');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
      });
      await db.schema.createTable('skill_bundles', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.text('tools').notNullable().defaultTo('[]');
        t.text('prompts').notNullable().defaultTo('[]');
        t.string('preset');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.unique(['tenant_id', 'name']);
      });
      await db.schema.createTable('agent_skills', (t) => {
        t.string('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
        t.string('bundle_id').notNullable().references('skill_bundles.id').onDelete('CASCADE');
        t.integer('position').notNullable();
        t.primary(['agent_id', 'bundle_id']);
      });
      await db.schema.createTable('agent_messages', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('from_agent_id');
        t.string('to_agent_id').notNullable();
        t.text('content').notNullable();
        t.string('session_id');
        t.string('txid');
        t.string('created_at').notNullable();
        t.index(['tenant_id', 'to_agent_id', 'created_at']);
        t.index(['tenant_id', 'from_agent_id', 'created_at']);
      });
    },
  },
  {
    // Lists page in (created_at, id) order: the index serves that order whole, with no sort step.
    name: '002_agents_list_order',
    async up(db) {
      await db.schema.alterTable('agents', (t) => {
        t.index(['tenant_id', 'created_at', 'id'], 'agents_list_order');
      });
    },
  },
  {
    // The messaging extension sends messages in threads; a message remembers its thread.
    name: '003_agent_message_threads',
    async up(db) {
      await db.schema.alterTable('agent_messages', (t) => {
        t.string('thread_id');
        t.index(['tenant_id', 'thread_id', 'created_at'], 'agent_messages_thread');
      });
    },
  },
  {
    // Why a message's txid is still null (chainchat not set up, queued, a chain failure being retried).
    name: '004_wallets_agent_message_txid_reason',
    async up(db) {
      await db.schema.alterTable('agent_messages', (t) => {
        t.text('txid_reason');
      });
    },
  },
  {
    // How many agents each tenant has, which its plan's limit counts on every create: kept by the
    // database itself (triggers on insert and delete, inside the statement that changes the agents), so a
    // create reads one row instead of counting the tenant's agents, and no write can leave it behind.
    name: '005_agent_counts',
    async up(db) {
      await db.schema.createTable('agent_counts', (t) => {
        t.string('tenant_id').primary();
        t.integer('n').notNullable();
      });
      await db.raw('INSERT INTO agent_counts (tenant_id, n) SELECT tenant_id, count(*) FROM agents GROUP BY tenant_id');
      if (db.client.config.client === 'pg') {
        await db.raw(`CREATE FUNCTION agent_counts_follow() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
          BEGIN
            IF TG_OP = 'INSERT' THEN
              INSERT INTO agent_counts (tenant_id, n) VALUES (NEW.tenant_id, 1) ON CONFLICT (tenant_id) DO UPDATE SET n = agent_counts.n + 1;
              RETURN NEW;
            END IF;
            UPDATE agent_counts SET n = n - 1 WHERE tenant_id = OLD.tenant_id;
            RETURN OLD;
          END $$`);
        await db.raw('CREATE TRIGGER agent_counts_follow AFTER INSERT OR DELETE ON agents FOR EACH ROW EXECUTE FUNCTION agent_counts_follow()');
        return;
      }
      await db.raw(`CREATE TRIGGER agent_counts_insert AFTER INSERT ON agents BEGIN
        INSERT INTO agent_counts (tenant_id, n) VALUES (NEW.tenant_id, 1) ON CONFLICT (tenant_id) DO UPDATE SET n = n + 1;
      END`);
      await db.raw(`CREATE TRIGGER agent_counts_delete AFTER DELETE ON agents BEGIN
        UPDATE agent_counts SET n = n - 1 WHERE tenant_id = OLD.tenant_id;
      END`);
    },
  },
  {
    // agents_list_order (tenant_id, created_at, id) serves every query the first (tenant_id, created_at)
    // index did: that one only cost every create and delete a page more to write.
    name: '006_drop_agents_tenant_created_index',
    async up(db) {
      await db.schema.alterTable('agents', (t) => {
        t.dropIndex(['tenant_id', 'created_at']);
      });
    },
  },
];
