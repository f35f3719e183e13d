// Data survives a restart: stop the real server, start it again on the same data dir, and find the
// projects, tenants, keys, members, capability grants, settings and audit chain intact.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createBundle } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('persistence across restarts', { timeout: 55_000 }, () => {
  const instanceKey = `rk_test_${randomBytes(16).toString('hex')}`;
  const env = { ROOST_API_KEY: instanceKey };
  let server: TestServer;
  let dataDir: string;
  let workDir: string;
  const before_: Record<string, any> = {};
  let tenantKey: string;
  let operatorKey: string;

  /** Everything that must come back after the restart, read over the API. */
  const state = async () => {
    const plugins = await server.api('GET', '/api/plugins');
    const projectsPlugin = plugins.body.plugins.find((p: any) => p.name === 'projects');
    return {
      localProjects: (await server.api('GET', '/api/projects')).body,
      tenantProjects: (await server.api('GET', '/api/projects', { key: tenantKey })).body,
      tenant: (await server.api('GET', '/api/tenants/me', { key: tenantKey })).body,
      operator: (await server.api('GET', '/api/tenants/me', { key: operatorKey })).body,
      members: (await server.api('GET', '/api/tenants/me/members', { key: tenantKey })).body,
      instanceOwner: (await server.api('GET', '/api/tenants/me', { key: instanceKey })).body,
      grants: projectsPlugin.capabilities.granted,
      mode: (await server.api('GET', '/api/operational-mode')).body.mode,
      tenantSettings: (await server.api('GET', '/api/settings', { key: tenantKey })).body.settings,
    };
  };

  before(async () => {
    server = await startTestServer({ env });
    dataDir = server.dataDir;
    workDir = await mkdtemp(join(tmpdir(), 'roost-persist-'));
  });
  after(async () => {
    await server.cleanup();
    await rm(dataDir, { recursive: true, force: true });
    await rm(workDir, { recursive: true, force: true });
  });

  it('reports the schema versions of the kernel and of projects', async () => {
    // projects is lazy: it migrates, and reports its version, when its first request starts it.
    assert.equal((await server.api('GET', '/api/projects')).status, 200);
    const health = await server.api('GET', '/api/health');
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'ok');
    const versions = health.body.schemaVersions;
    assert.ok(Number.isInteger(versions.kernel) && versions.kernel >= 4, JSON.stringify(versions));
    assert.ok(Number.isInteger(versions.projects) && versions.projects >= 1, JSON.stringify(versions));
    before_.versions = versions;
  });

  it('keeps everything across a restart', async () => {
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'Durable', plan: 'pro' } });
    tenantKey = registered.body.apiKey;
    operatorKey = (await server.api('POST', '/api/tenants/me/members', { key: tenantKey, body: { role: 'operator', label: 'bot' } })).body.apiKey;
    const local = await server.api('POST', '/api/projects', { body: { name: 'local', workingDir: workDir, env_vars: { MODE: 'x' } } });
    const mine = await server.api('POST', '/api/projects', { key: operatorKey, body: { name: 'tenant', description: 'kept', workingDir: workDir } });
    assert.equal(local.status, 201);
    assert.equal(mine.status, 201);
    const bundleIds = [await createBundle(server, tenantKey, 's1'), await createBundle(server, tenantKey, 's2')];
    assert.equal((await server.api('PUT', `/api/projects/${mine.body.id}/skills`, { key: tenantKey, body: { bundleIds } })).status, 200);
    assert.equal((await server.api('POST', '/api/plugins/projects/grant', { body: { capability: 'network' } })).status, 200);
    assert.equal((await server.api('POST', '/api/plugins/projects/revoke?force=true', { body: { capability: 'events' } })).status, 200);
    assert.equal((await server.api('POST', '/api/operational-mode', { body: { mode: 'queued' } })).status, 200);
    const snapshot = await state();
    assert.ok(snapshot.grants.includes('network') && !snapshot.grants.includes('events'));
    const auditTotal = (await server.api('GET', '/api/audit-log?limit=1')).body.total;

    await server.stop();
    server = await startTestServer({ env, dataDir });

    assert.deepEqual(await state(), snapshot);
    assert.deepEqual((await server.api('GET', `/api/projects/${mine.body.id}/skills`, { key: operatorKey })).body.bundleIds, bundleIds);
    const health = await server.api('GET', '/api/health');
    const versions = Object.fromEntries(Object.keys(before_.versions).map((name) => [name, health.body.schemaVersions[name]]));
    assert.deepEqual(versions, before_.versions, 'no migration ran twice, none was lost');
    const verify = await server.api('GET', '/api/audit-log/verify');
    assert.equal(verify.body.valid, true);
    assert.equal(verify.body.checked, auditTotal);
    // The chain continues where it stopped.
    assert.equal((await server.api('POST', '/api/projects', { key: tenantKey, body: { name: 'after', workingDir: workDir } })).status, 201);
    const again = await server.api('GET', '/api/audit-log/verify');
    assert.equal(again.body.valid, true);
    assert.equal(again.body.checked, auditTotal + 1);
  });

  it('keeps a member removal and a key rotation across a restart', async () => {
    const members = (await server.api('GET', '/api/tenants/me/members', { key: tenantKey })).body.members;
    const operator = members.find((m: any) => m.role === 'operator');
    assert.equal((await server.api('DELETE', `/api/tenants/me/members/${operator.keyHash}`, { key: tenantKey })).status, 204);
    const rotated = await server.api('POST', '/api/settings/api-key/rotate', { key: tenantKey });
    assert.equal(rotated.status, 201);

    await server.stop();
    server = await startTestServer({ env, dataDir });

    assert.equal((await server.api('GET', '/api/tenants/me', { key: operatorKey })).status, 403, 'a removed member stays removed');
    assert.equal((await server.api('GET', '/api/tenants/me', { key: rotated.body.apiKey })).body.org, 'Durable');
    const status = await server.api('GET', '/api/settings/api-key/status', { key: tenantKey });
    assert.equal(status.status, 200, 'the old key is still in its (default, one day) grace period');
    assert.equal(Date.parse(status.body.expiresAt), Date.parse(rotated.body.previous.validUntil));
  });
});
