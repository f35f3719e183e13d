// Unloading and loading extensions on the live server, across a restart, and refusing bad manifests
// without changing anything.
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixture, loadFixture, pluginInfo } from '../fixtures/extensions/helpers.js';

describe('unload and load', () => {
  let server: TestServer;
  let dataDir: string;
  let workDir: string;
  let projectId: string;
  before(async () => {
    dataDir = await mkdtemp(`${tmpdir()}/roost-unload-`);
    workDir = await mkdtemp(`${tmpdir()}/roost-unload-work-`);
    server = await startTestServer({ dataDir });
    projectId = (await server.api('POST', '/api/projects', { body: { name: 'kept', workingDir: workDir } })).body.id;
  });
  after(async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('unloads projects (with what requires it): its process stops and its routes answer 404 ROUTE_NOT_FOUND', async () => {
    const { pid, dependents } = await pluginInfo(server, 'projects');
    assert.ok(dependents.includes('work-tasks') && !dependents.includes('sessions'), JSON.stringify(dependents));
    const refused = await server.api('POST', '/api/plugins/projects/unload');
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.body.details.dependents, dependents);
    const unloaded = await server.api('POST', '/api/plugins/projects/unload?force=true');
    assert.equal(unloaded.status, 200);
    assert.equal(unloaded.body.state, 'unloaded');
    assert.deepEqual(unloaded.body.routes, []);
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
    for (const path of ['/api/projects', `/api/projects/${projectId}`]) {
      const res = await server.api('GET', path);
      assert.equal(res.status, 404);
      assert.equal(res.body.code, 'ROUTE_NOT_FOUND');
    }
    for (const name of dependents) assert.equal((await pluginInfo(server, name)).state, 'unloaded', name);
    const again = await server.api('POST', '/api/plugins/projects/unload');
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'CONFLICT');
  });

  it('loads an extension from a folder', async () => {
    const loaded = await loadFixture(server, 'fx-probe');
    assert.equal(loaded.status, 201);
    assert.equal(loaded.body.dir, fixture('fx-probe'));
    assert.equal(loaded.body.state, 'running');
    assert.equal((await server.api('GET', '/api/fx-probe/echo/x')).status, 200);
  });

  it('keeps both after a restart: projects unloaded, fx-probe loaded from its folder', async () => {
    await server.stop();
    server = await startTestServer({ dataDir });
    assert.equal((await pluginInfo(server, 'projects')).state, 'unloaded');
    assert.equal((await server.api('GET', '/api/projects')).status, 404);
    assert.equal((await pluginInfo(server, 'fx-probe')).state, 'running');
    assert.equal((await server.api('GET', '/api/fx-probe/echo/y')).body.params.word, 'y');
  });

  it('loads projects again by name, with its data intact', async () => {
    const loaded = await server.api('POST', '/api/plugins/load', { body: { name: 'projects' } });
    assert.equal(loaded.status, 201);
    assert.equal(loaded.body.state, 'stopped', 'projects is lazy: loaded now, started by its first request');
    assert.ok(loaded.body.routes.includes('GET /api/projects/:id'));
    const got = await server.api('GET', `/api/projects/${projectId}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.name, 'kept');
    const twice = await server.api('POST', '/api/plugins/load', { body: { name: 'projects' } });
    assert.equal(twice.status, 409);
  });

  it('refuses bad manifests with a clear error and changes nothing', async () => {
    const before = (await server.api('GET', '/api/plugins')).body.plugins;
    const cases: Array<[string, number, RegExp]> = [
      ['bad-protocol', 400, /speaks protocol "cli-v2"; this host speaks "cli-v1"/],
      ['bad-toml', 400, /not valid TOML/],
      ['bad-kernel-clash', 409, /GET \/api\/health, which the kernel already serves/],
      ['bad-extension-clash', 409, /GET \/api\/projects, which projects already serves/],
      ['bad-not-server', 400, /no \[server\] table/],
      ['no-such-folder', 400, /no plugin\.toml/],
    ];
    for (const [name, status, message] of cases) {
      const res = await loadFixture(server, name);
      assert.equal(res.status, status, `${name}: ${res.text}`);
      assert.match(res.body.error, message, name);
    }
    const clashRoute = await server.api('GET', '/api/bad-extension-clash/own');
    assert.equal(clashRoute.status, 404);
    assert.deepEqual((await server.api('GET', '/api/plugins')).body.plugins, before);
    assert.equal((await server.api('GET', '/api/projects')).status, 200);
    assert.equal((await server.api('GET', '/api/health')).body.status, 'ok');

    // Nothing was remembered either: after a restart the refused extensions are still unknown.
    await server.stop();
    server = await startTestServer({ dataDir });
    const names = (await server.api('GET', '/api/plugins')).body.plugins.map((p: { name: string }) => p.name);
    assert.ok(names.includes('fx-probe') && names.includes('projects'));
    assert.equal((await pluginInfo(server, 'projects')).state, 'stopped', 'the re-load of projects was remembered (lazy: not started yet)');
    assert.deepEqual(names.filter((n: string) => n.startsWith('bad-')), []);
    assert.doesNotMatch(server.log(), /bad-/);
  });

  it('validates the load body and the caller', async () => {
    const both = await server.api('POST', '/api/plugins/load', { body: { path: fixture('fx-probe'), name: 'fx-probe' } });
    assert.equal(both.status, 400);
    const unknown = await server.api('POST', '/api/plugins/no-such-extension/unload');
    assert.equal(unknown.status, 404);
    const tenant = await server.api('POST', '/api/tenants/register', { body: { org: 'not-the-owner' } });
    const refused = await server.api('POST', '/api/plugins/projects/unload', { key: tenant.body.apiKey });
    assert.equal(refused.status, 403);
    assert.equal((await pluginInfo(server, 'projects')).state, 'stopped', 'still loaded, still lazy');
  });

  it('skips an extension with a route clash found at start-up, and starts the rest', async () => {
    const extensionDir = await mkdtemp(`${tmpdir()}/roost-ext-dir-`);
    // fx-shell stands for "the rest": it is self-contained, and a sandbox shows an extension its own folder only.
    for (const name of ['fx-shell', 'bad-extension-clash']) await cp(fixture(name), `${extensionDir}/${name}`, { recursive: true });
    const other = await startTestServer({ env: { ROOST_EXTENSION_DIRS: extensionDir } });
    try {
      assert.match(other.log(), /extension bad-extension-clash: bad-extension-clash declares GET \/api\/projects, which projects already serves/);
      assert.equal(await pluginInfo(other, 'bad-extension-clash'), undefined);
      assert.equal((await other.api('GET', '/api/fx-shell/hello/there')).body.hello, 'there');
      assert.equal((await pluginInfo(other, 'fx-shell')).state, 'running');
      assert.equal((await other.api('GET', '/api/projects')).status, 200);
    } finally {
      await other.cleanup();
      await rm(extensionDir, { recursive: true, force: true });
    }
  });
});
