import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_workflows',
    async up(db) {
      await db.schema.createTable('workflows', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.boolean('enabled').notNullable().defaultTo(true);
        t.text('nodes').notNullable();
        t.text('edges').notNullable();
        t.text('settings').notNullable().defaultTo('{}');
        t.integer('version').notNullable().defaultTo(1);
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.index(['tenant_id', 'created_at']);
      });
      await db.schema.createTable('workflow_runs', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('workflow_id').notNullable();
        t.integer('workflow_version').notNullable();
        // The graph as it was when the run started: editing the workflow never changes a running run.
        t.text('graph').notNullable();
        t.text('settings').notNullable();
        t.string('status').notNullable();
        t.text('input').notNullable();
        t.text('output');
        t.text('error');
        t.string('error_code');
        t.integer('node_runs').notNullable().defaultTo(0);
        t.string('created_by').notNullable();
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.string('ended_at');
        t.index(['tenant_id', 'created_at']);
        t.index(['workflow_id', 'created_at']);
        t.index(['status']);
      });
      await db.schema.createTable('workflow_node_runs', (t) => {
        t.string('id').primary();
        t.string('run_id').notNullable().references('workflow_runs.id').onDelete('CASCADE');
        t.integer('seq').notNullable();
        t.string('node_id').notNullable();
        t.string('node_type').notNullable();
        t.string('status').notNullable();
        t.text('input');
        t.text('output');
        // What a node needs to resume without repeating itself: started session, launch or task ids, join arrivals.
        t.text('state').notNullable().defaultTo('{}');
        t.string('branch');
        t.text('error');
        t.string('error_code');
        t.string('from_node_run');
        // Milliseconds since the epoch (on the engine's clock) when a waiting node wakes: delays and time-outs.
        t.bigInteger('wake_at');
        t.string('claimed_by');
        t.string('created_at').notNullable();
        t.string('started_at');
        t.string('ended_at');
        t.unique(['run_id', 'seq']);
        t.index(['status', 'wake_at']);
      });
      await db.schema.createTable('workflow_kv', (t) => {
        t.string('key').primary();
        t.text('value').notNullable();
      });
    },
  },
  {
    // What a run's sessions cost (councils and work tasks included), and how much output it stored.
    name: '002_run_cost_and_size',
    async up(db) {
      await db.schema.alterTable('workflow_runs', (t) => {
        t.bigInteger('cost_micro').notNullable().defaultTo(0);
        t.bigInteger('data_bytes').notNullable().defaultTo(0);
      });
      await db.schema.alterTable('workflow_node_runs', (t) => {
        t.bigInteger('cost_micro').notNullable().defaultTo(0);
      });
    },
  },
];
