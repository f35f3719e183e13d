// Migrations on both stores, and on PostgreSQL under a concurrent start: two servers on one empty
// database migrate the kernel and the same extensions at once; each migration runs exactly once.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sharedPostgres, stopSharedPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { kernelMigrations } from '../../kernel/storage/migrations.js';
import { STORES, storeEnv, withClient } from './support.js';

after(() => stopSharedPostgres());

for (const store of STORES) {
  describe(`migrations on ${store}`, () => {
    it('migrate the kernel and each extension on start, and again (to nothing new) on restart', async () => {
      const env = await storeEnv(store);
      let server = await startTestServer({ env });
      try {
        await server.api('GET', '/api/projects');
        const first = (await server.api('GET', '/api/health')).body.schemaVersions;
        assert.equal(first.kernel, kernelMigrations.length);
        assert.ok(first.projects >= 1);
        await server.stop();
        server = await startTestServer({ env, dataDir: server.dataDir });
        assert.equal((await server.api('GET', '/api/projects')).status, 200);
        assert.deepEqual((await server.api('GET', '/api/health')).body.schemaVersions.kernel, first.kernel);
      } finally {
        await server.cleanup();
      }
    });
  });
}

describe('migrations under a concurrent start on PostgreSQL', () => {
  it('two servers starting at once on one database: both ready, every migration applied once', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const servers: TestServer[] = await Promise.all([startTestServer({ databaseUrl: url }), startTestServer({ databaseUrl: url })]);
    try {
      // Both wake the same extensions at once: each extension's migrations race too.
      const woken = await Promise.all(servers.flatMap((s) => [s.api('GET', '/api/projects'), s.api('GET', '/api/agents'), s.api('GET', '/api/sessions')]));
      assert.deepEqual(woken.map((r) => r.status), [200, 200, 200, 200, 200, 200], woken.map((r) => r.text).join('\n'));
      const counts = await withClient(url, async (c) => {
        const out: Record<string, { applied: number; distinct: number }> = {};
        for (const schema of ['roost_kernel', 'roost_ext_projects', 'roost_ext_agents', 'roost_ext_sessions']) {
          const { rows } = await c.query(`SELECT count(*)::int AS applied, count(DISTINCT name)::int AS distinct FROM ${c.escapeIdentifier(schema)}.knex_migrations`);
          out[schema] = rows[0];
        }
        return out;
      });
      for (const [schema, { applied, distinct }] of Object.entries(counts)) {
        assert.ok(applied > 0, schema);
        assert.equal(applied, distinct, `${schema}: a migration ran twice`);
      }
      const versions = await Promise.all(servers.map(async (s) => (await s.api('GET', '/api/health')).body.schemaVersions));
      assert.deepEqual(versions[0], versions[1]);
      assert.equal(versions[0].kernel, counts.roost_kernel!.applied);
    } finally {
      await Promise.all(servers.map((s) => s.cleanup()));
    }
  });
});
