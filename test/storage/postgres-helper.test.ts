// The test PostgreSQL itself: a real server, reachable with password auth, a fresh database each time, gone after stop().
// And the run's shared server (npm test): a file adds databases to it, cannot stop it, and drops its own when it ends.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { RUN_POSTGRES_ENV, startPostgres } from '../helpers/postgres.js';

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

test('the run\'s PostgreSQL: each file adds its databases, may not stop it, and drops them when it ends', async () => {
  const server = await startPostgres();
  after(() => server.stop());
  const helper = fileURLToPath(new URL('../helpers/postgres.ts', import.meta.url));
  // A test file's process, as run-suite.ts starts it: its sharedPostgres() is the run's server.
  const script = `const { sharedPostgres } = await import(${JSON.stringify(helper)});
    const shared = await sharedPostgres();
    const url = await shared.createDatabase();
    const refused = await shared.stopImmediately().then(() => 'stopped', (err) => err.message);
    await shared.stop();
    console.log(JSON.stringify({ url, refused }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, [RUN_POSTGRES_ENV]: server.adminUrl }, encoding: 'utf8' });
  const { url, refused } = JSON.parse(out.trim().split('\n').at(-1)!) as { url: string; refused: string };
  assert.equal(new URL(url).port, new URL(server.adminUrl).port, 'a database on the run\'s server');
  assert.match(refused, /not this file's to stop or restart/);
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query('SELECT datname FROM pg_database WHERE datname = $1', [new URL(url).pathname.slice(1)]);
    assert.deepEqual(rows, [], 'dropped when the file\'s process ended');
  } finally {
    await admin.end();
  }
});
