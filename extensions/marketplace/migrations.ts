import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_marketplace',
    async up(db) {
      await db.schema.createTable('listings', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('kind').notNullable();
        t.string('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.text('tags').notNullable().defaultTo('[]');
        t.string('resource_id');
        t.string('agent_id');
        t.bigInteger('price_micro_units').notNullable().defaultTo(0);
        t.string('visibility').notNullable();
        t.integer('rating_sum').notNullable().defaultTo(0);
        t.integer('rating_count').notNullable().defaultTo(0);
        t.integer('use_count').notNullable().defaultTo(0);
        // The seller agent's reputation score (0–100) as last announced by the reputation extension.
        t.float('agent_reputation');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.index(['tenant_id', 'created_at']);
        t.index(['visibility', 'updated_at']);
        t.index(['tenant_id', 'agent_id']);
      });
      // The search index: each word of a listing's name, tags and description with its weight.
      await db.schema.createTable('listing_terms', (t) => {
        t.string('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
        t.string('term').notNullable();
        t.float('weight').notNullable();
        t.primary(['term', 'listing_id']);
        t.index(['listing_id']);
      });
      await db.schema.createTable('reviews', (t) => {
        t.string('id').primary();
        t.string('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
        t.string('tenant_id').notNullable();
        t.integer('rating').notNullable();
        t.text('comment').notNullable().defaultTo('');
        t.string('created_at').notNullable();
        t.unique(['listing_id', 'tenant_id']);
      });
      await db.schema.createTable('uses', (t) => {
        t.string('id').primary();
        t.string('listing_id').notNullable();
        t.string('listing_tenant_id').notNullable();
        t.string('tenant_id').notNullable();
        t.string('agent_id');
        t.string('escrow_id');
        t.bigInteger('micro_units').notNullable().defaultTo(0);
        t.string('state').notNullable();
        t.string('outcome');
        t.text('reason').notNullable().defaultTo('');
        t.string('created_at').notNullable();
        t.string('settled_at');
        t.index(['tenant_id', 'created_at']);
      });
      await db.schema.createTable('instances', (t) => {
        t.string('tenant_id').notNullable();
        t.string('url').notNullable();
        t.string('public_key').notNullable();
        t.string('key_id').notNullable();
        t.integer('timeout_ms').notNullable();
        t.string('etag');
        t.string('last_sync_at');
        t.string('last_status');
        t.text('last_error');
        t.integer('listing_count').notNullable().defaultTo(0);
        t.string('created_at').notNullable();
        t.primary(['tenant_id', 'url']);
      });
      await db.schema.createTable('federated_listings', (t) => {
        t.string('tenant_id').notNullable();
        t.string('instance_url').notNullable();
        t.string('remote_id').notNullable();
        t.text('listing').notNullable();
        t.string('synced_at').notNullable();
        t.primary(['tenant_id', 'instance_url', 'remote_id']);
      });
    },
  },
];
