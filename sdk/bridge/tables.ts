// The tables every chat bridge keeps in its own database: its configuration per tenant (credentials
// sealed), the conversations it maps to sessions (so a restart keeps every thread on its session), the
// deliveries it has seen (duplicates are dropped), and the chat messages that carry an owner question
// or an approval (so an answer there finds what it answers, and closing it finds the message).
import type { Knex } from 'knex';

export async function createBridgeTables(db: Knex): Promise<void> {
  await db.schema.createTable('bridge_config', (t) => {
    t.string('tenant_id').primary();
    // The service's id for the workspace or application (Slack team id, Discord application id):
    // how an inbound delivery, which carries no Roost credentials, finds its tenant.
    t.string('route_key').nullable().unique();
    t.text('settings').notNullable();
    t.text('secrets').notNullable();
    t.string('updated_at').notNullable();
  });
  await db.schema.createTable('conversations', (t) => {
    t.string('tenant_id').notNullable();
    t.string('conversation_id').notNullable();
    t.string('channel_id').notNullable();
    t.string('thread_id').nullable();
    t.string('agent_id').notNullable();
    t.string('session_id').nullable();
    t.text('title').notNullable();
    t.string('created_at').notNullable();
    t.string('last_activity_at').notNullable();
    t.primary(['tenant_id', 'conversation_id']);
    t.index(['tenant_id', 'last_activity_at']);
  });
  await db.schema.createTable('seen_deliveries', (t) => {
    t.string('delivery_key').primary();
    t.string('seen_at').notNullable();
    t.index(['seen_at']);
  });
  await db.schema.createTable('prompt_messages', (t) => {
    // What the chat message asks: an owner question or an escalation (approval) entry.
    t.string('external_id').primary();
    t.string('tenant_id').notNullable();
    t.string('kind').notNullable();
    t.string('subject_id').notNullable();
    t.string('conversation_id').nullable();
    t.text('options').notNullable().defaultTo('[]');
    t.string('closed_at').nullable();
    t.string('created_at').notNullable();
    t.unique(['tenant_id', 'kind', 'subject_id']);
  });
}

/**
 * One owner question goes to every channel of the tenant, so several messages of one bridge may carry the
 * same question (two Slack channels, say): (tenant, kind, subject) is looked up, never unique.
 */
export async function promptsPerMessage(db: Knex): Promise<void> {
  await db.schema.alterTable('prompt_messages', (t) => {
    t.dropUnique(['tenant_id', 'kind', 'subject_id']);
    t.index(['tenant_id', 'kind', 'subject_id']);
  });
}
