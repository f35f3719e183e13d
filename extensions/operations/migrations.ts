import type { Migration } from '../../protocol/storage.js';

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
];
