// On PostgreSQL every extension connects with a login role of its own that owns its schema and reaches
// nothing else: not the kernel's schema, not another extension's, not `public`, not another database.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import knexFactory, { type Knex } from 'knex';
import { openDatabase } from '../../lib/storage.js';
import { provisionExtension } from '../../kernel/storage/pg-roles.js';
import { sharedPostgres, stopSharedPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { withClient } from './support.js';

after(() => stopSharedPostgres());

describe('extension roles on PostgreSQL', () => {
  let server: TestServer;
  let adminUrl: string;
  let kernelDb: Knex;
  before(async () => {
    adminUrl = await (await sharedPostgres()).createDatabase();
    server = await startTestServer({ databaseUrl: adminUrl });
    // Wake the agents and projects extensions, so their schemas hold tables.
    assert.equal((await server.api('POST', '/api/agents', { body: { name: 'secret-agent' } })).status, 201);
    assert.equal((await server.api('GET', '/api/projects')).status, 200);
    kernelDb = openDatabase({ client: 'pg', connection: adminUrl, schema: 'roost_kernel' });
  });
  after(async () => {
    await kernelDb?.destroy();
    await server?.cleanup();
  });

  it('extensions connect with their own role, never the admin one', async () => {
    const users = await withClient(adminUrl, async (c) => (await c.query<{ usename: string }>('SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.usename));
    assert.ok(users.some((u) => u.startsWith('roost_ext_agents_')), users.join());
    assert.ok(users.some((u) => u.startsWith('roost_ext_projects_')), users.join());
  });

  it("an extension's role reads its own schema and nothing else", async () => {
    // The very storage the kernel hands the projects extension at init (provisioning is idempotent).
    const storage = await provisionExtension(kernelDb, adminUrl, 'projects');
    assert.equal(storage.schema, 'roost_ext_projects');
    const url = new URL(storage.connection as string);
    assert.notEqual(url.username, new URL(adminUrl).username);
    await withClient(storage.connection as string, async (c) => {
      assert.equal((await c.query('SELECT current_schema() AS s')).rows[0].s, 'roost_ext_projects');
      await c.query('SELECT count(*) FROM projects');
      await c.query('CREATE TABLE scratch (id int)');
      await c.query('DROP TABLE scratch');
      const denied = async (sql: string) => assert.rejects(c.query(sql), /permission denied/, sql);
      await denied('SELECT * FROM roost_kernel.api_keys');
      await denied('SELECT * FROM roost_kernel.server_secrets');
      await denied('SELECT * FROM roost_ext_agents.agents');
      await denied('CREATE TABLE roost_ext_agents.mine (id int)');
      await denied('CREATE TABLE public.mine (id int)');
      await denied('CREATE SCHEMA elsewhere');
      await denied('CREATE TEMP TABLE t (id int)');
      await denied('SET ROLE roost_admin');
    });
    // Its password does not open the admin's account, nor another database of the cluster Roost owns.
    const asAdmin = new URL(adminUrl);
    asAdmin.password = url.password;
    await assert.rejects(withClient(asAdmin.toString(), async () => undefined), /password authentication failed/);
    const otherDb = await (await sharedPostgres()).createDatabase();
    const other = await startTestServer({ databaseUrl: otherDb });
    await other.cleanup();
    const there = new URL(storage.connection as string);
    there.pathname = new URL(otherDb).pathname;
    await assert.rejects(withClient(there.toString(), async () => undefined), /permission denied for database/);
  });

  it('refuses an extension name that cannot name a schema', async () => {
    await assert.rejects(provisionExtension(kernelDb, adminUrl, 'Bad Name'), /cannot name a PostgreSQL schema/);
  });
});
