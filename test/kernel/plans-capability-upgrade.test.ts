// Reading a tenant's plan (tenant_plan) needs the `plans` capability since migration 009: extensions
// registered before it keep what they could do (each is granted `plans` on upgrade), so an upgraded
// server's plan limits still work, and a third-party extension keeps reading plans until revoked.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadFixture, pluginInfo } from '../fixtures/extensions/helpers.js';
import { sqliteFilesOnly, startTestServer, type TestServer } from '../helpers/server.js';
import { changeRows } from './sqlite-file.js';

describe('the plans capability on upgrade', { skip: sqliteFilesOnly, timeout: 60_000 }, () => {
  let server: TestServer | undefined;
  after(() => server?.cleanup());

  it('grants plans to every extension registered before it existed', async () => {
    server = await startTestServer();
    assert.equal((await loadFixture(server, 'fx-probe')).status, 201);
    assert.ok(!(await pluginInfo(server, 'fx-probe')).capabilities.granted.includes('plans'), 'fx-probe does not ask for it');
    const { dataDir } = server;
    await server.stop();
    // The kernel database as a server from before migration 009 left it.
    const kernelDb = join(dataDir, 'kernel.sqlite');
    await changeRows(kernelDb, "DELETE FROM extension_grants WHERE capability = 'plans'");
    await changeRows(kernelDb, "DELETE FROM knex_migrations WHERE name >= '009'");
    await changeRows(kernelDb, 'DROP TABLE idempotency_keys');
    await changeRows(kernelDb, 'ALTER TABLE tenants DROP COLUMN read_only_reason');
    server = await startTestServer({ dataDir });
    for (const name of ['fx-probe', 'projects', 'agents', 'sessions']) {
      assert.ok((await pluginInfo(server, name)).capabilities.granted.includes('plans'), name);
    }
    const plan = await server.api('POST', '/api/fx-probe/host', { body: { message: { type: 'tenant_plan', tenantId: 'default' } } });
    assert.equal(plan.body.value?.plan, 'enterprise', plan.text);
  });
});
