import type { Migration } from '../../lib/storage.js';

export const migrations: Migration[] = [
  {
    name: '001_projects',
    async up(db) {
      await db.schema.createTable('projects', (t) => {
        t.string('id').primary();
        t.string('tenant_id').notNullable();
        t.string('name').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.text('working_dir').notNullable();
        t.text('env_vars').notNullable().defaultTo('{}');
        t.string('created_at').notNullable();
        t.string('updated_at').notNullable();
        t.index(['tenant_id', 'created_at']);
      });
      await db.schema.createTable('project_skills', (t) => {
        t.string('project_id').notNullable().references('projects.id').onDelete('CASCADE');
        t.string('bundle_id').notNullable();
        t.integer('position').notNullable();
        t.primary(['project_id', 'bundle_id']);
      });
    },
  },
];
