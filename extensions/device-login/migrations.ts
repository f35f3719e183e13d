import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_device_codes',
    async up(db) {
      // Pending, decided and used device codes. The device code is kept hashed; an approved one holds the
      // kernel's key grant, and the key itself is minted only when the device polls: none is ever stored.
      await db.schema.createTable('device_codes', (t) => {
        t.string('device_code_hash').primary();
        t.string('user_code').notNullable().unique();
        t.string('client_id').notNullable();
        t.string('status').notNullable();
        t.text('grant');
        t.string('approved_by');
        t.bigInteger('interval_ms').notNullable();
        t.bigInteger('last_poll_at');
        t.bigInteger('expires_at').notNullable();
        t.string('created_at').notNullable();
        t.index(['expires_at']);
      });
      // Wrong user codes per caller (key hash, or `local`) in the current 10-minute window: guessing is refused past five.
      await db.schema.createTable('device_guesses', (t) => {
        t.string('caller').primary();
        t.integer('count').notNullable();
        t.bigInteger('since').notNullable();
      });
    },
  },
];
