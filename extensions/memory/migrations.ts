import type { Knex } from 'knex';
import type { Migration } from '../../lib/storage.js';

/** Memories and library entries: sealed name and content, and the blind index of their words (words.ts). */
function shelfTable(t: Knex.CreateTableBuilder): void {
  // seq: a stable integer id for the SQLite full-text table's rowid (a string primary key has none).
  t.increments('seq');
  t.string('id').notNullable().unique();
  t.string('tenant_id').notNullable();
  // The agent whose memory it is, or "library" for the tenant's shared library.
  t.string('owner_id').notNullable();
  t.string('name_hash').notNullable();
  t.text('name_enc').notNullable();
  t.text('content_enc').notNullable();
  // Sealed JSON of what else the record carries (a library entry's tags and author).
  t.text('extra_enc');
  t.text('words').notNullable();
  t.integer('access_count').notNullable().defaultTo(0);
  t.string('last_accessed_at');
  t.string('created_at').notNullable();
  t.string('updated_at').notNullable();
  t.unique(['tenant_id', 'owner_id', 'name_hash']);
  t.index(['tenant_id', 'owner_id', 'updated_at']);
}

/** Keyword search: an FTS5 table kept in step by triggers on SQLite, a generated tsvector on PostgreSQL. */
async function fullText(db: Knex, table: string): Promise<void> {
  if (db.client.config.client === 'pg') {
    await db.raw(`ALTER TABLE ${table} ADD COLUMN words_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', words)) STORED`);
    await db.raw(`CREATE INDEX ${table}_words_tsv ON ${table} USING gin (words_tsv)`);
    return;
  }
  const fts = `${table}_fts`;
  await db.raw(`CREATE VIRTUAL TABLE ${fts} USING fts5(words, tokenize = 'ascii')`);
  await db.raw(`CREATE TRIGGER ${fts}_insert AFTER INSERT ON ${table} BEGIN INSERT INTO ${fts} (rowid, words) VALUES (new.seq, new.words); END`);
  await db.raw(`CREATE TRIGGER ${fts}_update AFTER UPDATE OF words ON ${table} BEGIN UPDATE ${fts} SET words = new.words WHERE rowid = new.seq; END`);
  await db.raw(`CREATE TRIGGER ${fts}_delete AFTER DELETE ON ${table} BEGIN DELETE FROM ${fts} WHERE rowid = old.seq; END`);
}

export const migrations: Migration[] = [
  {
    name: '001_memory',
    async up(db) {
      await db.schema.createTable('memory_meta', (t) => {
        t.string('name').primary();
        t.text('value').notNullable();
      });
      await db.schema.createTable('memories', (t) => {
        shelfTable(t);
        // The on-chain transaction of a memory once it is sent there (chainchat fills it); NULL until then.
        t.string('txid');
      });
      await db.schema.createTable('library_entries', shelfTable);
      await fullText(db, 'memories');
      await fullText(db, 'library_entries');
      await db.schema.createTable('observations', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.text('body_enc').notNullable();
        // Keyed hash of the normalised content: recording the same observation again reinforces it.
        t.string('content_hash').notNullable();
        t.float('score').notNullable();
        t.integer('access_count').notNullable().defaultTo(0);
        t.string('status').notNullable();
        t.string('memory_key');
        t.string('graduated_at');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.index(['tenant_id', 'agent_id', 'status', 'updated_at']);
        t.index(['tenant_id', 'agent_id', 'content_hash']);
      });
      await db.schema.createTable('memory_settings', (t) => {
        t.string('tenant_id').notNullable();
        // "" for the tenant's own settings; an agent's id for that agent's overrides.
        t.string('agent_id').notNullable();
        t.text('settings').notNullable();
        t.string('updated_at').notNullable();
        t.primary(['tenant_id', 'agent_id']);
      });
    },
  },
];
