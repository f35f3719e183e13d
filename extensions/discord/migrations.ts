import type { Migration } from '../../lib/storage.js';
import { createOutboxTable } from '../../sdk/bridge/outbox.js';
import { createBridgeTables, promptsPerMessage } from '../../sdk/bridge/tables.js';

export const migrations: Migration[] = [
  { name: '001_bridge_tables', up: createBridgeTables },
  {
    name: '002_voice_cache',
    async up(db) {
      await db.schema.createTable('voice_cache', (t) => {
        t.string('tenant_id').notNullable();
        // sha256 of (model, voice, text)
        t.string('cache_key').notNullable();
        t.integer('bytes').notNullable();
        t.binary('audio').notNullable();
        t.string('content_type').notNullable();
        t.integer('hits').notNullable().defaultTo(0);
        t.string('created_at').notNullable();
        // Milliseconds, strictly increasing within a process: the least recently used goes first.
        t.bigInteger('used_at').notNullable();
        t.primary(['tenant_id', 'cache_key']);
        t.index(['used_at']);
      });
      await db.schema.createTable('voice_stats', (t) => {
        t.string('tenant_id').primary();
        t.integer('hits').notNullable().defaultTo(0);
        t.integer('misses').notNullable().defaultTo(0);
        t.integer('evictions').notNullable().defaultTo(0);
      });
    },
  },
  { name: '003_prompts_per_message', up: promptsPerMessage },
  { name: '004_outbox', up: createOutboxTable },
];
