// Where projects may live on a server started with the default roots (no ROOST_ALLOWED_ROOTS): the
// instance owner works in the home folder, the server's folder and the system temp folder; every other
// tenant works only in a folder of its own, <data>/workspaces/<tenant>, where missing folders are made.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('project folders with the default roots', () => {
  let server: TestServer;
  let ownerDir: string;
  let tenant: { id: string; key: string };
  let tenantRoot: string;

  before(async () => {
    // An empty ROOST_ALLOWED_ROOTS is the same as none: the defaults apply.
    server = await startTestServer({ env: { ROOST_ALLOWED_ROOTS: '' } });
    ownerDir = await mkdtemp(join(tmpdir(), 'roost-owner-'));
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'Elsewhere' } });
    assert.equal(registered.status, 201, registered.text);
    tenant = { id: registered.body.tenant.id, key: registered.body.apiKey };
    tenantRoot = join(server.dataDir, 'workspaces', tenant.id);
  });
  after(async () => {
    await server.cleanup();
    await rm(ownerDir, { recursive: true, force: true });
  });

  it('lets the instance owner use the home, server and temp folders', async () => {
    const created = await server.api('POST', '/api/projects', { body: { name: 'in-tmp', workingDir: ownerDir } });
    assert.equal(created.status, 201, created.text);
    const roots = (await server.api('GET', '/api/browse-dirs')).body.roots as string[];
    for (const expected of [homedir(), process.cwd(), tmpdir()]) assert.ok(roots.includes(expected), `${expected} in ${JSON.stringify(roots)}`);
  });

  it("keeps another tenant to its own folder, and says so naming the setting", async () => {
    const refused = await server.api('POST', '/api/projects', { key: tenant.key, body: { name: 'in-tmp', workingDir: ownerDir } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'VALIDATION_ERROR');
    assert.match(refused.body.error, /outside this tenant's folder .*ROOST_ALLOWED_ROOTS/);
    const browse = await server.api('GET', '/api/browse-dirs', { key: tenant.key });
    assert.deepEqual(browse.body.roots, [tenantRoot]);
    const peek = await server.api('GET', `/api/browse-dirs?path=${encodeURIComponent(ownerDir)}`, { key: tenant.key });
    assert.equal(peek.status, 403);
  });

  it("makes a missing project folder inside the tenant's own folder", async () => {
    const workingDir = join(tenantRoot, 'apps', 'first');
    const created = await server.api('POST', '/api/projects', { key: tenant.key, body: { name: 'first', workingDir } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.workingDir, workingDir);
    assert.ok((await stat(workingDir)).isDirectory());
  });

  it('refuses a way out of the own folder: .. and links', async () => {
    const escape = await server.api('POST', '/api/projects', { key: tenant.key, body: { name: 'up', workingDir: `${tenantRoot}/../other/x` } });
    assert.equal(escape.status, 400);
    assert.match(escape.body.error, /outside this tenant's folder/);
    await mkdir(tenantRoot, { recursive: true });
    await symlink(ownerDir, join(tenantRoot, 'door'));
    const viaLink = await server.api('POST', '/api/projects', { key: tenant.key, body: { name: 'door', workingDir: join(tenantRoot, 'door', 'inside') } });
    assert.equal(viaLink.status, 400);
    assert.match(viaLink.body.error, /outside this tenant's folder/);
    await assert.rejects(stat(join(ownerDir, 'inside')), /ENOENT/, 'nothing was made through the link');
  });
});
