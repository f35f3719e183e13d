import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_credits',
    async up(db) {
      // One row per agent wallet; `balance` is the sum of its transactions, kept in step in the
      // same database transaction that appends them.
      await db.schema.createTable('wallets', (t) => {
        t.string('address').primary();
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.string('agent_name').notNullable().defaultTo('');
        t.bigInteger('balance').notNullable().defaultTo(0);
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.string('agent_deleted_at');
        t.index(['tenant_id', 'created_at']);
        t.index(['tenant_id', 'agent_id']);
      });
      await db.schema.createTable('credit_transactions', (t) => {
        t.increments('seq').primary();
        t.string('id').notNullable().unique();
        t.string('tenant_id').notNullable();
        t.string('wallet').notNullable().references('wallets.address');
        t.string('kind').notNullable();
        t.bigInteger('micro_units').notNullable();
        t.bigInteger('balance_after').notNullable();
        t.string('reference').notNullable().defaultTo('');
        t.text('reason').notNullable().defaultTo('');
        t.string('actor').notNullable();
        t.string('created_at').notNullable();
        t.index(['tenant_id', 'wallet', 'created_at']);
      });
      await db.schema.createTable('reservations', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('wallet').notNullable().references('wallets.address');
        t.string('agent_id').notNullable();
        t.string('session_id').notNullable();
        t.bigInteger('micro_units').notNullable();
        t.string('state').notNullable();
        t.string('provider');
        t.string('model');
        t.bigInteger('actual_micro_units');
        t.integer('input_tokens');
        t.integer('output_tokens');
        t.string('created_at').notNullable();
        t.string('expires_at').notNullable();
        t.string('settled_at');
        t.index(['state', 'expires_at']);
        t.index(['tenant_id', 'wallet', 'state']);
      });
      await db.schema.createTable('daily_spending', (t) => {
        t.string('wallet').notNullable().references('wallets.address');
        t.string('date').notNullable();
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.bigInteger('total').notNullable().defaultTo(0);
        t.primary(['wallet', 'date']);
      });
      await db.schema.createTable('spending_caps', (t) => {
        t.string('tenant_id').notNullable();
        t.string('agent_id').notNullable();
        t.bigInteger('daily_limit').notNullable();
        t.string('updated_at').notNullable();
        t.primary(['tenant_id', 'agent_id']);
      });
      await db.schema.createTable('credit_config', (t) => {
        t.string('tenant_id').primary();
        t.text('config').notNullable();
        t.string('updated_at').notNullable();
      });
    },
  },
  {
    name: '002_escrow',
    async up(db) {
      // Credits held between two wallets (a marketplace use): taken from the payer on hold, then paid
      // to the payee on release or returned to the payer on refund. The payee may be of another tenant.
      await db.schema.createTable('escrows', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('payer_wallet').notNullable().references('wallets.address');
        t.string('payer_agent_id').notNullable();
        t.string('payee_tenant_id').notNullable();
        t.string('payee_wallet').notNullable().references('wallets.address');
        t.string('payee_agent_id').notNullable();
        t.bigInteger('micro_units').notNullable();
        t.string('state').notNullable();
        t.string('reference').notNullable().defaultTo('');
        t.text('reason').notNullable().defaultTo('');
        t.string('created_at').notNullable();
        t.string('settled_at');
        t.index(['tenant_id', 'state']);
      });
    },
  },
  {
    name: '003_reservation_claims',
    async up(db) {
      // A reservation made ahead of a turn (a council reserves its members' turns before a stage) is
      // claimed by the session that answers it: once, by one session.
      await db.schema.alterTable('reservations', (t) => {
        t.string('claimed_at');
      });
    },
  },
];
