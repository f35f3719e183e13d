import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_mcp_servers',
    async up(db) {
      await db.schema.createTable('mcp_servers', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.string('transport').notNullable();
        t.text('command');
        t.text('args').notNullable().defaultTo('[]');
        t.text('cwd');
        t.text('url');
        // "all", or a JSON array of agent ids.
        t.text('agent_ids').notNullable();
        t.boolean('enabled').notNullable().defaultTo(true);
        // The names of the env variables and headers (not secret), and their values sealed (sdk/sealed.ts).
        t.text('secret_names').notNullable().defaultTo('{"env":[],"headers":[]}');
        t.text('secrets').notNullable();
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.unique(['tenant_id', 'name']);
      });
    },
  },
  {
    name: '002_mcp_servers_sealed_target',
    async up(db) {
      // The args and the URL often carry tokens: sealed too, as {args, url}. `url` keeps only the URL's
      // origin (what a config shows), `args` becomes "[]" and `secret_names` counts the args; rows of 001
      // are converted when the extension starts with its key (state.ts).
      await db.schema.alterTable('mcp_servers', (t) => {
        t.text('target_sealed');
      });
    },
  },
];
