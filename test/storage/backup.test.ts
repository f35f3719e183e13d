// POST /api/backup on each store says how it was made: VACUUM INTO on SQLite; on PostgreSQL pg_dump
// when it can be run, else a row export in one snapshot. Each copy holds the data.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { stopSharedPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { storeEnv, type Store } from './support.js';

after(() => stopSharedPostgres());

async function withServer(store: Store, env: Record<string, string>, fn: (server: TestServer) => Promise<void>): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), 'roost-backup-'));
  const server = await startTestServer({ env: { ...(await storeEnv(store)), ...env } });
  try {
    assert.equal((await server.api('POST', '/api/projects', { body: { name: 'kept-in-the-copy', workingDir: workDir } })).status, 201);
    await fn(server);
  } finally {
    await server.cleanup();
    await rm(workDir, { recursive: true, force: true });
  }
}

describe('backups by store', () => {
  it('SQLite: VACUUM INTO, one file per database', () => withServer('sqlite', {}, async (server) => {
    const res = await server.api('POST', '/api/backup');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.method, 'vacuum_into');
    assert.ok(res.body.databases.some((d: any) => d.name === 'extension:projects'));
  }));

  it('PostgreSQL: pg_dump of every roost_* schema', () => withServer('postgres', {}, async (server) => {
    const res = await server.api('POST', '/api/backup');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.method, 'pg_dump');
    const sql = await readFile(res.body.databases[0].file, 'utf8');
    for (const table of ['roost_kernel.api_keys', 'roost_kernel.audit_log', 'roost_ext_projects.projects']) assert.match(sql, new RegExp(`CREATE TABLE ${table.replace('.', '\\.')} `), table);
    assert.match(sql, /kept-in-the-copy/);
    assert.doesNotMatch(sql, /CREATE TABLE public\./);
  }));

  it('PostgreSQL without pg_dump: every row of every roost_* table as JSON lines', () => withServer('postgres', { ROOST_PG_DUMP: '' }, async (server) => {
    const res = await server.api('POST', '/api/backup');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.method, 'export');
    const lines = (await readFile(res.body.databases[0].file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    const project = lines.find((l) => l.schema === 'roost_ext_projects' && l.table === 'projects');
    assert.equal(project?.row.name, 'kept-in-the-copy');
    assert.ok(lines.some((l) => l.schema === 'roost_kernel' && l.table === 'tenants' && l.row.id === 'default'));
    assert.ok(lines.some((l) => l.schema === 'roost_kernel' && l.table === 'extension_grants' && l.row.extension === 'projects'));
  }));

  it('PostgreSQL with a pg_dump that is not there: the export', () => withServer('postgres', { ROOST_PG_DUMP: '/nonexistent/pg_dump' }, async (server) => {
    const res = await server.api('POST', '/api/backup');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.method, 'export');
  }));
});
