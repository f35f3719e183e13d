// POST /api/backup over real HTTP: only the instance owner may take one; it copies the kernel database
// and every extension database consistently, even while writes go on, and the copies open and hold the data.
import assert from 'node:assert/strict';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sqliteFilesOnly, startTestServer, type TestServer } from '../helpers/server.js';
import { selectRows } from './sqlite-file.js';

describe('backup', { timeout: 55_000 }, () => {
  let server: TestServer;
  let workDir: string;
  let tenantKey: string;
  let tenantId: string;

  before(async () => {
    server = await startTestServer();
    workDir = await mkdtemp(join(tmpdir(), 'roost-backup-'));
    for (const name of ['first', 'second']) {
      assert.equal((await server.api('POST', '/api/projects', { body: { name, workingDir: workDir } })).status, 201);
    }
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'Backed Up' } });
    tenantKey = registered.body.apiKey;
    tenantId = registered.body.tenant.id;
    assert.equal((await server.api('POST', '/api/projects', { key: tenantKey, body: { name: 'tenant-project', workingDir: workDir } })).status, 201);
  });
  after(async () => {
    await server.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('is refused to everyone but the instance owner', async () => {
    const refused = await server.api('POST', '/api/backup', { key: tenantKey });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'FORBIDDEN');
    const operator = await server.api('POST', '/api/tenants/me/members', { body: { role: 'operator' } });
    const byOperator = await server.api('POST', '/api/backup', { key: operator.body.apiKey });
    assert.equal(byOperator.status, 403, 'an operator of the default tenant is not the instance owner');
  });

  it('copies the kernel database and every extension database, and the copies hold the data', { skip: sqliteFilesOnly }, async () => {
    // Writes keep coming while the backup runs; the copy must still be a consistent database.
    const writes = Array.from({ length: 6 }, (_, i) => server.api('POST', '/api/projects', { body: { name: `during-${i}`, workingDir: workDir } }));
    const res = await server.api('POST', '/api/backup');
    for (const w of await Promise.all(writes)) assert.equal(w.status, 201);
    assert.equal(res.status, 201, res.text);
    assert.ok(res.body.dir.startsWith(join(server.dataDir, 'backups')), res.body.dir);
    const names = res.body.databases.map((d: any) => d.name);
    assert.ok(names.includes('kernel'), names.join());
    assert.ok(names.includes('extension:projects'), names.join());
    for (const db of res.body.databases) {
      assert.ok(db.file.startsWith(res.body.dir));
      await access(db.file);
      assert.ok(db.bytes > 0);
      assert.deepEqual(await selectRows(db.file, 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }], db.name);
    }

    const file = (name: string) => res.body.databases.find((d: any) => d.name === name).file as string;
    const projects = await selectRows(file('extension:projects'), 'SELECT name, tenant_id FROM projects ORDER BY created_at');
    const byName = new Map(projects.map((p) => [p.name, p.tenant_id]));
    assert.equal(byName.get('first'), 'default');
    assert.equal(byName.get('second'), 'default');
    assert.equal(byName.get('tenant-project'), tenantId);

    const tenants = await selectRows(file('kernel'), 'SELECT id, org FROM tenants ORDER BY org');
    assert.deepEqual(tenants.map((t) => t.org), ['Backed Up', 'default']);
    const keys = await selectRows(file('kernel'), 'SELECT tenant_id, role FROM api_keys');
    assert.ok(keys.some((k) => k.tenant_id === tenantId && k.role === 'owner'));
    const audit = await selectRows(file('kernel'), 'SELECT COUNT(*) AS n FROM audit_log');
    assert.ok(audit[0].n > 0);
  });

  it('takes a second backup into its own folder and leaves the live data untouched', async () => {
    const count = async (key?: string) => (await server.api('GET', '/api/projects?limit=200', { key })).body.total as number;
    const before = { owner: await count(), tenant: await count(tenantKey) };
    assert.ok(before.tenant >= 1);
    const first = await server.api('POST', '/api/backup');
    const second = await server.api('POST', '/api/backup');
    assert.equal(second.status, 201);
    assert.notEqual(first.body.dir, second.body.dir);
    assert.deepEqual({ owner: await count(), tenant: await count(tenantKey) }, before);
  });
});
