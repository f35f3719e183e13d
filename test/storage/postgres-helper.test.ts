// The test PostgreSQL itself: a real server, reachable with password auth, a fresh database each time, gone after stop().
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, test } from 'node:test';
import pg from 'pg';
import { startPostgres } from '../helpers/postgres.js';

test('a throwaway PostgreSQL: fresh databases, password auth, removed on stop', async () => {
  const server = await startPostgres();
  after(() => server.stop());
  const url = await server.createDatabase();
  const other = await server.createDatabase();
  assert.notEqual(url, other);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ db: string; version: string }>('SELECT current_database() AS db, current_setting($1) AS version', ['server_version_num']);
  await client.end();
  assert.equal(`/${rows[0]!.db}`, new URL(url).pathname);
  assert.ok(Number(rows[0]!.version) >= 120000);

  const wrong = new URL(url);
  wrong.password = 'not-the-password';
  const refused = new pg.Client({ connectionString: wrong.toString() });
  await assert.rejects(refused.connect(), /password authentication failed/);
  await refused.end().catch(() => undefined);

  await server.stop();
  const check = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  await assert.rejects(check.connect());
  assert.equal(existsSync(server.dir), false);
});
