// Tenants and members over real HTTP, with local auth required so every call is a real key:
// public registration, roles (owner, operator, viewer), member management and its guards.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.code, code);
  assert.equal(typeof res.body.error, 'string');
}

interface Registered {
  tenantId: string;
  key: string;
  keyHash: string;
}

describe('tenants and members', { timeout: 55_000 }, () => {
  const instanceKey = `rk_test_${randomBytes(16).toString('hex')}`;
  let server: TestServer;
  let workDir: string;
  let acme: Registered;
  let operatorKey: string;
  let operatorHash: string;
  let viewerKey: string;
  let viewerHash: string;

  const register = async (org: string, plan?: string): Promise<Registered> => {
    const res = await server.api('POST', '/api/tenants/register', { body: plan ? { org, plan } : { org } });
    assert.equal(res.status, 201, res.text);
    return { tenantId: res.body.tenant.id, key: res.body.apiKey, keyHash: res.body.keyHash };
  };

  before(async () => {
    server = await startTestServer({ env: { ROOST_LOCAL_AUTH: 'required', ROOST_API_KEY: instanceKey, ROOST_KEY_GRACE_SECONDS: '1' } });
    workDir = await mkdtemp(join(tmpdir(), 'roost-tenants-'));
  });
  after(() => server.cleanup());

  it('registers a tenant without any key and returns its owner key once', async () => {
    // A paid plan from the start is the server owner's to give (others subscribe through billing).
    assertError(await server.api('POST', '/api/tenants/register', { body: { org: 'Acme', plan: 'pro' } }), 403, 'FORBIDDEN');
    const res = await server.api('POST', '/api/tenants/register', { key: instanceKey, body: { org: 'Acme', plan: 'pro' } });
    assert.equal(res.status, 201);
    assert.equal(res.body.tenant.org, 'Acme');
    assert.equal(res.body.tenant.plan, 'pro');
    assert.equal(typeof res.body.tenant.limits.members, 'number');
    assert.match(res.body.tenant.id, /^[0-9a-f-]{36}$/);
    assert.equal(res.body.role, 'owner');
    assert.match(res.body.apiKey, /^rk_/);
    assert.equal(res.body.keyHash, sha256(res.body.apiKey));
    acme = { tenantId: res.body.tenant.id, key: res.body.apiKey, keyHash: res.body.keyHash };

    const me = await server.api('GET', '/api/tenants/me', { key: acme.key });
    assert.equal(me.status, 200);
    assert.deepEqual({ id: me.body.id, org: me.body.org, plan: me.body.plan, role: me.body.role, keyHash: me.body.keyHash },
      { id: acme.tenantId, org: 'Acme', plan: 'pro', role: 'owner', keyHash: acme.keyHash });
    // The key is never shown again: not by /me, not in the member list.
    const members = await server.api('GET', '/api/tenants/me/members', { key: acme.key });
    assert.ok(!me.text.includes(acme.key) && !members.text.includes(acme.key));
  });

  it('defaults the plan to free and refuses a bad registration', async () => {
    const free = await server.api('POST', '/api/tenants/register', { body: { org: 'Tiny' } });
    assert.equal(free.body.tenant.plan, 'free');
    assertError(await server.api('POST', '/api/tenants/register', { body: { org: 'X', plan: 'platinum' } }), 400, 'VALIDATION_ERROR');
    assertError(await server.api('POST', '/api/tenants/register', { body: {} }), 400, 'VALIDATION_ERROR');
  });

  it('lets the owner add operator and viewer keys, and list them', async () => {
    const op = await server.api('POST', '/api/tenants/me/members', { key: acme.key, body: { role: 'operator', label: 'ci' } });
    assert.equal(op.status, 201);
    assert.equal(op.body.role, 'operator');
    assert.equal(op.body.label, 'ci');
    assert.equal(op.body.keyHash, sha256(op.body.apiKey));
    operatorKey = op.body.apiKey;
    operatorHash = op.body.keyHash;
    const view = await server.api('POST', '/api/tenants/me/members', { key: acme.key, body: { role: 'viewer', expiresInDays: 2 } });
    assert.equal(view.status, 201);
    const expiresIn = Date.parse(view.body.expiresAt) - Date.now();
    assert.ok(expiresIn > 1.9 * 86_400_000 && expiresIn <= 2 * 86_400_000, `expiresAt ${view.body.expiresAt}`);
    viewerKey = view.body.apiKey;
    viewerHash = view.body.keyHash;

    const list = await server.api('GET', '/api/tenants/me/members', { key: acme.key });
    assert.equal(list.status, 200);
    const roles = Object.fromEntries(list.body.members.map((m: any) => [m.keyHash, m.role]));
    assert.deepEqual(roles, { [acme.keyHash]: 'owner', [operatorHash]: 'operator', [viewerHash]: 'viewer' });
    for (const m of list.body.members) assert.equal(m.apiKey, undefined);
    assert.equal((await server.api('GET', '/api/tenants/me', { key: operatorKey })).body.role, 'operator');
    assert.equal((await server.api('GET', '/api/tenants/me/members', { key: operatorKey })).status, 200, 'operators may read the member list');
    assertError(await server.api('GET', '/api/tenants/me/members', { key: viewerKey }), 403, 'FORBIDDEN');
  });

  it('lets an operator create projects but not add members or rotate keys', async () => {
    const created = await server.api('POST', '/api/projects', { key: operatorKey, body: { name: 'op-project', workingDir: workDir } });
    assert.equal(created.status, 201);
    assertError(await server.api('POST', '/api/tenants/me/members', { key: operatorKey, body: { role: 'viewer' } }), 403, 'FORBIDDEN');
    assertError(await server.api('POST', '/api/tenants/me/members', { key: operatorKey, body: { role: 'owner' } }), 403, 'FORBIDDEN');
    assertError(await server.api('DELETE', `/api/tenants/me/members/${viewerHash}`, { key: operatorKey }), 403, 'FORBIDDEN');
    assertError(await server.api('POST', '/api/settings/api-key/rotate', { key: operatorKey }), 403, 'FORBIDDEN');
    const members = await server.api('GET', '/api/tenants/me/members', { key: acme.key });
    assert.equal(members.body.members.length, 3, 'no member was added or removed');
    assert.equal((await server.api('GET', '/api/tenants/me', { key: operatorKey })).status, 200, 'the operator key was not rotated away');
  });

  it('lets a viewer read but refuses every change, in the kernel and in extensions', async () => {
    const before = await server.api('GET', '/api/projects', { key: acme.key });
    const project = before.body.projects[0];
    assert.equal((await server.api('GET', '/api/projects', { key: viewerKey })).body.total, 1);
    assert.equal((await server.api('GET', `/api/projects/${project.id}`, { key: viewerKey })).status, 200);
    assert.equal((await server.api('GET', `/api/projects/${project.id}/skills`, { key: viewerKey })).status, 200);
    assert.equal((await server.api('GET', '/api/tenants/me', { key: viewerKey })).body.role, 'viewer');
    assert.equal((await server.api('GET', '/api/settings', { key: viewerKey })).status, 200);

    const attempts: Array<[string, string, unknown?]> = [
      ['POST', '/api/projects', { name: 'v', workingDir: workDir }],
      ['PUT', `/api/projects/${project.id}`, { name: 'renamed' }],
      ['DELETE', `/api/projects/${project.id}`],
      ['PUT', `/api/projects/${project.id}/skills`, { bundleIds: ['b1'] }],
      ['POST', '/api/tenants/me/members', { role: 'viewer' }],
      ['DELETE', `/api/tenants/me/members/${viewerHash}`],
      ['POST', '/api/settings/api-key/rotate'],
      ['POST', '/api/operational-mode', { mode: 'paused' }],
      ['POST', '/api/backup'],
      ['POST', '/api/plugins/projects/grant', { capability: 'network' }],
      ['POST', '/api/plugins/projects/unload'],
    ];
    for (const [method, path, body] of attempts) {
      assertError(await server.api(method, path, { key: viewerKey, body }), 403, 'FORBIDDEN');
    }
    const afterwards = await server.api('GET', '/api/projects', { key: acme.key });
    assert.deepEqual(afterwards.body, before.body);
    assert.deepEqual((await server.api('GET', `/api/projects/${project.id}/skills`, { key: acme.key })).body.bundleIds, []);
    assert.equal((await server.api('GET', '/api/tenants/me/members', { key: acme.key })).body.members.length, 3);
    assert.equal((await server.api('GET', '/api/operational-mode', { key: instanceKey })).body.mode, 'normal');
    assert.equal((await server.api('GET', '/api/health')).body.extensions.projects, 'running');
  });

  it('removes a member by keyHash, after which its key is refused', async () => {
    const removed = await server.api('DELETE', `/api/tenants/me/members/${operatorHash}`, { key: acme.key });
    assert.equal(removed.status, 204);
    assertError(await server.api('GET', '/api/tenants/me', { key: operatorKey }), 403, 'INVALID_API_KEY');
    const list = await server.api('GET', '/api/tenants/me/members', { key: acme.key });
    assert.ok(!list.body.members.some((m: any) => m.keyHash === operatorHash));
    assertError(await server.api('DELETE', `/api/tenants/me/members/${operatorHash}`, { key: acme.key }), 404, 'NOT_FOUND');
  });

  it("answers 404 for another tenant's keyHash and leaves that member alone", async () => {
    const other = await register('Other Inc');
    assertError(await server.api('DELETE', `/api/tenants/me/members/${acme.keyHash}`, { key: other.key }), 404, 'NOT_FOUND');
    assertError(await server.api('DELETE', `/api/tenants/me/members/${viewerHash}`, { key: other.key }), 404, 'NOT_FOUND');
    assertError(await server.api('DELETE', `/api/tenants/me/members/${other.keyHash}`, { key: acme.key }), 404, 'NOT_FOUND');
    assert.equal((await server.api('GET', '/api/tenants/me', { key: viewerKey })).status, 200);
    assert.equal((await server.api('GET', '/api/tenants/me', { key: other.key })).status, 200);
    const otherMembers = await server.api('GET', '/api/tenants/me/members', { key: other.key });
    assert.deepEqual(otherMembers.body.members.map((m: any) => m.keyHash), [other.keyHash]);
  });

  it('never removes the last owner', async () => {
    assertError(await server.api('DELETE', `/api/tenants/me/members/${acme.keyHash}`, { key: acme.key }), 409, 'CONFLICT');
    // With a second owner, the first may go; the second is then the last.
    const second = await server.api('POST', '/api/tenants/me/members', { key: acme.key, body: { role: 'owner', label: 'deputy' } });
    assert.equal(second.status, 201);
    assert.equal((await server.api('DELETE', `/api/tenants/me/members/${acme.keyHash}`, { key: second.body.apiKey })).status, 204);
    assertError(await server.api('GET', '/api/tenants/me', { key: acme.key }), 403, 'INVALID_API_KEY');
    assertError(await server.api('DELETE', `/api/tenants/me/members/${second.body.keyHash}`, { key: second.body.apiKey }), 409, 'CONFLICT');
    assert.equal((await server.api('GET', '/api/tenants/me', { key: second.body.apiKey })).body.role, 'owner');
  });

  it('does not count a rotated-out owner key as another owner', async () => {
    const solo = await register('Solo');
    const rotated = await server.api('POST', '/api/settings/api-key/rotate', { key: solo.key });
    assert.equal(rotated.status, 201);
    const me = await server.api('GET', '/api/tenants/me', { key: rotated.body.apiKey });
    assert.equal(me.body.id, solo.tenantId, 'the new key belongs to the same tenant');
    assert.equal(me.body.role, 'owner');
    await sleep(1_300);
    assertError(await server.api('GET', '/api/tenants/me', { key: solo.key }), 403, 'INVALID_API_KEY');
    const res = await server.api('DELETE', `/api/tenants/me/members/${rotated.body.keyHash}`, { key: rotated.body.apiKey });
    assertError(res, 409, 'CONFLICT');
    assert.equal((await server.api('GET', '/api/tenants/me', { key: rotated.body.apiKey })).status, 200, 'the tenant still has a working owner');
  });

  it('refuses bad member requests', async () => {
    const key = (await register('Strict')).key;
    for (const body of [{}, { role: 'admin' }, { role: 'viewer', expiresInDays: 0 }, { role: 'viewer', expiresInDays: 'ten' }, { role: 'viewer', extra: true }, ['viewer']]) {
      assertError(await server.api('POST', '/api/tenants/me/members', { key, body }), 400, 'VALIDATION_ERROR');
    }
    assert.equal((await server.api('GET', '/api/tenants/me/members', { key })).body.members.length, 1);
  });
});
