// The kernel's own tables. Numbered; never edit one that has landed — add the next.
import type { Migration } from '../../lib/storage.js';

export const kernelMigrations: Migration[] = [
  {
    name: '001_tenants_and_keys',
    async up(db) {
      await db.schema.createTable('tenants', (t) => {
        t.string('id').primary();
        t.string('org').notNullable();
        t.string('plan').notNullable().defaultTo('free');
        t.text('limits').notNullable().defaultTo('{}');
        t.string('created_at').notNullable();
      });
      await db.schema.createTable('api_keys', (t) => {
        t.string('key_hash').primary();
        t.string('tenant_id').notNullable().references('tenants.id').onDelete('CASCADE');
        t.string('role').notNullable();
        t.string('label').notNullable().defaultTo('');
        t.string('created_at').notNullable();
        t.string('expires_at');
        t.string('revoked_at');
        t.string('last_used_at');
        t.index(['tenant_id']);
      });
    },
  },
  {
    name: '002_settings_kv_grants',
    async up(db) {
      await db.schema.createTable('settings', (t) => {
        t.string('tenant_id').notNullable();
        t.string('key').notNullable();
        t.text('value').notNullable();
        t.string('updated_at').notNullable();
        t.primary(['tenant_id', 'key']);
      });
      await db.schema.createTable('plugin_kv', (t) => {
        t.string('plugin').notNullable();
        t.string('key').notNullable();
        t.text('value').notNullable();
        t.string('updated_at').notNullable();
        t.primary(['plugin', 'key']);
      });
      await db.schema.createTable('extension_grants', (t) => {
        t.string('extension').notNullable();
        t.string('capability').notNullable();
        t.boolean('granted').notNullable();
        t.string('updated_at').notNullable();
        t.primary(['extension', 'capability']);
      });
      await db.schema.createTable('extension_sources', (t) => {
        t.string('name').primary();
        t.string('dir').notNullable();
        t.boolean('loaded').notNullable();
        t.string('updated_at').notNullable();
      });
    },
  },
  {
    name: '003_audit_log',
    async up(db) {
      await db.schema.createTable('audit_log', (t) => {
        t.increments('seq').primary();
        t.string('ts').notNullable();
        t.string('tenant_id');
        t.string('actor').notNullable();
        t.string('action').notNullable();
        t.string('resource').notNullable();
        t.text('detail').notNullable();
        t.string('prev_hash').notNullable();
        t.string('hash').notNullable();
        t.index(['tenant_id', 'seq']);
        t.index(['action']);
      });
    },
  },
  {
    name: '004_mcp_tokens',
    async up(db) {
      await db.schema.createTable('mcp_tokens', (t) => {
        t.string('token_hash').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.string('session_id');
        t.text('tools').notNullable();
        t.string('issued_by').notNullable();
        t.string('expires_at').notNullable();
      });
    },
  },
  {
    name: '005_server_secrets',
    async up(db) {
      // Secrets every instance of one deployment shares (e.g. what PostgreSQL role passwords derive from).
      await db.schema.createTable('server_secrets', (t) => {
        t.string('name').primary();
        t.text('value').notNullable();
        t.string('created_at').notNullable();
      });
    },
  },
  {
    name: '006_bus_events',
    async up(db) {
      // Bus events too large for a PostgreSQL notification: the notification carries the row's id.
      await db.schema.createTable('bus_events', (t) => {
        t.increments('id').primary();
        t.text('body').notNullable();
        t.string('created_at').notNullable();
        t.index(['created_at']);
      });
    },
  },
  {
    name: '007_shared_limits',
    async up(db) {
      // Used when instances share a PostgreSQL database (one process keeps both in memory).
      await db.schema.createTable('rate_buckets', (t) => {
        t.string('caller').primary();
        t.double('tokens').notNullable();
        t.bigInteger('at').notNullable();
        t.boolean('allowed').notNullable();
        t.index(['at']);
      });
      await db.schema.createTable('ws_tickets', (t) => {
        t.string('ticket_hash').primary();
        t.text('identity').notNullable();
        t.bigInteger('expires_at').notNullable();
      });
    },
  },
  {
    name: '008_plans_and_device_auth',
    async up(db) {
      // Plans: the limits now come from the plan (configuration); the column keeps per-tenant overrides only.
      await db.schema.alterTable('tenants', (t) => {
        t.string('billing_status').notNullable().defaultTo('none');
        t.string('read_only_at');
      });
      await db('tenants').update({ limits: '{}' });
      // It also made device_authorizations, which device login (now the device-login extension, with its
      // own store) used: a fresh database no longer gets it, and 012 drops it where it was made.
    },
  },
  {
    name: '009_plans_capability',
    async up(db) {
      // Reading a tenant's plan (tenant_plan) now needs the `plans` capability. Extensions registered
      // before keep what they could do: each gets it granted (an operator may revoke it).
      const registered: Array<{ extension: string }> = await db('extension_grants').distinct('extension');
      const now = new Date().toISOString();
      if (registered.length > 0) {
        await db('extension_grants').insert(registered.map(({ extension }) => ({ extension, capability: 'plans', granted: true, updated_at: now }))).onConflict(['extension', 'capability']).ignore();
      }
    },
  },
  {
    name: '010_idempotency_keys',
    async up(db) {
      // Idempotency-Key answers (kernel/http/idempotency.ts): claimed by the request that runs, then kept for a day.
      await db.schema.createTable('idempotency_keys', (t) => {
        t.string('tenant_id').notNullable();
        t.string('key', 255).notNullable();
        t.string('fingerprint', 64).notNullable();
        t.string('owner').notNullable();
        t.integer('status');
        t.text('headers');
        t.text('body');
        t.bigInteger('lease_until').notNullable();
        t.bigInteger('expires_at').notNullable();
        t.primary(['tenant_id', 'key']);
        t.index(['expires_at']);
      });
    },
  },
  {
    name: '011_tenant_read_only_reason',
    async up(db) {
      // Why a tenant reads only, as the extension that set it says (kernel/tenants/read-only.ts).
      await db.schema.alterTable('tenants', (t) => {
        t.string('read_only_reason', 500);
      });
    },
  },
  {
    name: '012_drop_device_authorizations',
    async up(db) {
      // Device login is the device-login extension's, in its own store; the kernel's table (pending
      // codes that lived minutes) has been unread since, and nothing is handed over from it.
      await db.schema.dropTableIfExists('device_authorizations');
    },
  },
  {
    name: '013_plans_capability_gone',
    async up(db) {
      // Plans are an extension's now (tenant_plan is gone, and with it the `plans` capability): a stored grant
      // of it would only show in GET /api/plugins. The tenants table's plan columns stay, for the plans
      // extension to take over once (legacy_tenant_columns).
      await db('extension_grants').where({ capability: 'plans' }).delete();
    },
  },
  {
    name: '014_mcpauth_key_audience',
    async up(db) {
      // A key minted through the `keys` capability for one resource (an OAuth access token for /mcp, RFC 8707)
      // is accepted there only; minted_by names the extension that made it, the only one that may revoke it.
      await db.schema.alterTable('api_keys', (t) => {
        t.string('audience', 500);
        t.string('minted_by', 200);
      });
    },
  },
];
