import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_oauth',
    async up(db) {
      // Clients registered dynamically (RFC 7591): public clients, their exact redirect URIs.
      await db.schema.createTable('oauth_clients', (t) => {
        t.string('client_id').primary();
        t.text('metadata').notNullable();
        t.string('created_at').notNullable();
      });
      // Authorization requests waiting for a person's consent on the dashboard (minutes).
      await db.schema.createTable('oauth_requests', (t) => {
        t.string('id').primary();
        t.string('client_id').notNullable();
        t.text('redirect_uri').notNullable();
        t.text('state');
        t.string('code_challenge').notNullable();
        t.text('resource').notNullable();
        t.text('scope');
        t.text('issuer').notNullable();
        t.bigInteger('expires_at').notNullable();
      });
      // Authorization codes, stored hashed, each holding the kernel's grant the consent made; used once.
      await db.schema.createTable('oauth_codes', (t) => {
        t.string('code_hash').primary();
        t.string('client_id').notNullable();
        t.text('redirect_uri').notNullable();
        t.string('code_challenge').notNullable();
        t.text('resource').notNullable();
        t.text('grant').notNullable();
        t.string('status').notNullable();
        t.bigInteger('expires_at').notNullable();
      });
      // Refresh tokens, hashed, rotated on each use; a family is one consent, revoked whole when a used
      // token comes back (RFC 9700 §4.14) or on revocation, with the access key each one minted.
      await db.schema.createTable('oauth_refresh_tokens', (t) => {
        t.string('token_hash').primary();
        t.string('family_id').notNullable();
        t.string('client_id').notNullable();
        t.text('resource').notNullable();
        t.text('grant').notNullable();
        t.string('access_key_hash').notNullable();
        t.string('status').notNullable();
        t.bigInteger('expires_at').notNullable();
        t.index(['family_id']);
      });
    },
  },
];
