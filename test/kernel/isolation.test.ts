// Tenant isolation over real HTTP: two registered tenants never see or touch each other's projects,
// and a refused attempt leaves the other tenant's data exactly as it was.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createBundle } from '../agents/support.js';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.js';

function assertNotFound(res: ApiResponse): void {
  assert.equal(res.status, 404, res.text);
  assert.equal(res.body.code, 'NOT_FOUND');
  assert.equal(typeof res.body.error, 'string');
}

describe('tenant isolation', { timeout: 55_000 }, () => {
  let server: TestServer;
  let dirA: string;
  let dirB: string;
  let keyA: string;
  let keyB: string;
  let projectA: any;
  let projectB: any;
  let bundleA: string;

  const register = async (org: string): Promise<string> => {
    const res = await server.api('POST', '/api/tenants/register', { body: { org } });
    assert.equal(res.status, 201, res.text);
    return res.body.apiKey;
  };

  before(async () => {
    server = await startTestServer();
    dirA = await mkdtemp(join(tmpdir(), 'roost-iso-a-'));
    dirB = await mkdtemp(join(tmpdir(), 'roost-iso-b-'));
    keyA = await register('Tenant A');
    keyB = await register('Tenant B');
    const a = await server.api('POST', '/api/projects', { key: keyA, body: { name: 'shared-name', description: 'A only', workingDir: dirA, env_vars: { SECRET: 'a-secret' } } });
    const b = await server.api('POST', '/api/projects', { key: keyB, body: { name: 'shared-name', description: 'B only', workingDir: dirB } });
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.equal((await server.api('PUT', `/api/projects/${a.body.id}/skills`, { key: keyA, body: { bundleIds: [(bundleA = await createBundle(server, keyA, 'bundle-a'))] } })).status, 200);
    projectA = (await server.api('GET', `/api/projects/${a.body.id}`, { key: keyA })).body;
    projectB = b.body;
  });
  after(() => server.cleanup());

  it('lists only the caller tenant projects', async () => {
    const listA = await server.api('GET', '/api/projects', { key: keyA });
    assert.deepEqual(listA.body.projects.map((p: any) => p.id), [projectA.id]);
    assert.equal(listA.body.total, 1);
    const listB = await server.api('GET', '/api/projects?search=shared', { key: keyB });
    assert.deepEqual(listB.body.projects.map((p: any) => p.id), [projectB.id]);
    assert.ok(!listB.text.includes('a-secret'));
    // The instance owner is the default tenant: it administers the server, it does not read tenants' records.
    const local = await server.api('GET', '/api/projects');
    assert.equal(local.body.total, 0);
  });

  it("answers 404 for every route on another tenant's project", async () => {
    const id = projectA.id;
    assertNotFound(await server.api('GET', `/api/projects/${id}`, { key: keyB }));
    assertNotFound(await server.api('PUT', `/api/projects/${id}`, { key: keyB, body: { name: 'hijacked', env_vars: { SECRET: 'b' } } }));
    assertNotFound(await server.api('PUT', `/api/projects/${id}`, { key: keyB, body: { workingDir: dirB } }));
    assertNotFound(await server.api('GET', `/api/projects/${id}/skills`, { key: keyB }));
    assertNotFound(await server.api('PUT', `/api/projects/${id}/skills`, { key: keyB, body: { bundleIds: ['bundle-b'] } }));
    assertNotFound(await server.api('DELETE', `/api/projects/${id}`, { key: keyB }));
    assertNotFound(await server.api('GET', `/api/projects/${id}`));
    assertNotFound(await server.api('DELETE', `/api/projects/${id}`));
  });

  it("answers another tenant's id exactly like an id that does not exist", async () => {
    const foreign = await server.api('GET', `/api/projects/${projectA.id}`, { key: keyB });
    const missing = await server.api('GET', `/api/projects/${randomUUID()}`, { key: keyB });
    assert.equal(foreign.status, missing.status);
    assert.equal(foreign.body.code, missing.body.code);
  });

  it('leaves the other tenant data unchanged', async () => {
    const a = await server.api('GET', `/api/projects/${projectA.id}`, { key: keyA });
    assert.deepEqual(a.body, projectA);
    const skills = await server.api('GET', `/api/projects/${projectA.id}/skills`, { key: keyA });
    assert.deepEqual(skills.body.bundleIds, [bundleA]);
    const b = await server.api('GET', `/api/projects/${projectB.id}`, { key: keyB });
    assert.deepEqual(b.body, projectB);
    assert.deepEqual((await server.api('GET', `/api/projects/${projectB.id}/skills`, { key: keyB })).body.bundleIds, []);
  });

  it('keeps each tenant to its own members and settings', async () => {
    const membersA = await server.api('GET', '/api/tenants/me/members', { key: keyA });
    const membersB = await server.api('GET', '/api/tenants/me/members', { key: keyB });
    assert.equal(membersA.body.members.length, 1);
    assert.equal(membersB.body.members.length, 1);
    assert.notEqual(membersA.body.members[0].keyHash, membersB.body.members[0].keyHash);
    const meA = await server.api('GET', '/api/tenants/me', { key: keyA });
    const settingsB = await server.api('GET', '/api/settings', { key: keyB });
    assert.notEqual(settingsB.body.tenantId, meA.body.id);
  });

  it('lets each tenant delete only its own project', async () => {
    assert.equal((await server.api('DELETE', `/api/projects/${projectB.id}`, { key: keyB })).status, 204);
    assert.deepEqual((await server.api('GET', `/api/projects/${projectA.id}`, { key: keyA })).body, projectA);
    assert.equal((await server.api('GET', '/api/projects', { key: keyB })).body.total, 0);
  });
});
