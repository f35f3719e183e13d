import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_performance',
    async up(db) {
      // One row per series per collection (`raw`), rolled up into one per series per hour (`hour`)
      // once older than the raw retention: value is then the hour's mean, with its min, max and count.
      await db.schema.createTable('perf_samples', (t) => {
        t.increments('id').primary();
        t.string('metric').notNullable();
        // Canonical JSON (sorted keys), so equal labels are equal strings.
        t.text('labels').notNullable();
        t.bigInteger('at').notNullable();
        t.string('resolution').notNullable();
        t.double('value').notNullable();
        t.double('min').notNullable();
        t.double('max').notNullable();
        t.integer('count').notNullable();
        t.index(['metric', 'at']);
        t.index(['resolution', 'at']);
      });
    },
  },
  {
    name: '002_instances_and_health',
    async up(db) {
      // The instance a sample was taken on ('' on SQLite, where there is one), as a column too: the
      // latest collection of each instance is then found through an index, not by parsing labels.
      // Samples stored before this migration keep '' (the next collection is the latest anyway).
      await db.schema.alterTable('perf_samples', (t) => {
        t.string('instance').notNullable().defaultTo('');
        t.index(['instance', 'resolution', 'at']);
      });
      // Each instance's latest collection.
      await db.schema.createTable('perf_instances', (t) => {
        t.string('instance').primary();
        t.bigInteger('last_at').notNullable();
      });
      // Health snapshots: the server's health as judged at a collection, stored when it changed and at
      // least hourly. `detail` is JSON: problems, extension states, headline figures.
      await db.schema.createTable('health_snapshots', (t) => {
        t.string('id').primary();
        t.string('instance').notNullable();
        t.bigInteger('at').notNullable();
        t.string('status').notNullable();
        t.text('detail').notNullable();
        t.index(['at']);
        t.index(['instance', 'at']);
      });
    },
  },
];
