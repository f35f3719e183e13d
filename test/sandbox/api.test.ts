// The sandbox REST API on a real server: policy CRUD with bad input, roles and tenants; the pool's
// stats; assigning and releasing a session's sandbox; and a server whose bwrap setting points at no
// file, where assigning fails with a clear error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerTenant, type Tenant } from '../agents/support.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { startHarness, type Harness } from '../sessions/harness.js';

describe('sandbox API', () => {
  let h: Harness;
  let a: Tenant;
  let b: Tenant;
  before(async () => {
    h = await startHarness();
    a = await registerTenant(h.server, 'sbx-alpha');
    b = await registerTenant(h.server, 'sbx-beta');
  });
  after(() => h.close());

  it('sets, reads, lists and deletes a policy, missing fields taking the defaults', async () => {
    const agent = await h.agent({}, a.owner);
    const empty = await h.server.api('GET', '/api/sandbox/policies', { key: a.owner });
    assert.deepEqual(empty.body.policies, []);
    assert.equal(empty.body.defaults.network, false);
    const put = await h.server.api('PUT', `/api/sandbox/policies/${agent.id}`, { key: a.owner, body: { network: true, memoryMb: 256 } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual({ ...put.body, updatedAt: 'x' }, { agentId: agent.id, ...empty.body.defaults, network: true, memoryMb: 256, updatedAt: 'x' });
    const operator = await h.server.api('PUT', `/api/sandbox/policies/${agent.id}`, { key: a.operator, body: { writablePaths: ['build', 'dist/out'], maxProcesses: 8 } });
    assert.equal(operator.status, 200, operator.text);
    assert.equal(operator.body.network, false, 'a PUT replaces the whole policy');
    const got = await h.server.api('GET', `/api/sandbox/policies/${agent.id}`, { key: a.viewer });
    assert.deepEqual(got.body, operator.body);
    assert.deepEqual((await h.server.api('GET', '/api/sandbox/policies', { key: a.owner })).body.policies, [operator.body]);
    assert.equal((await h.server.api('DELETE', `/api/sandbox/policies/${agent.id}`, { key: a.owner })).status, 204);
    assert.equal((await h.server.api('GET', `/api/sandbox/policies/${agent.id}`, { key: a.owner })).body.code, 'NOT_FOUND');
    assert.equal((await h.server.api('DELETE', `/api/sandbox/policies/${agent.id}`, { key: a.owner })).status, 404);
  });

  it('refuses bad input with a clear error and keeps the policy it had', async () => {
    const agent = await h.agent({}, a.owner);
    await h.server.api('PUT', `/api/sandbox/policies/${agent.id}`, { key: a.owner, body: { cpuSeconds: 7 } });
    const bad: Array<[unknown, RegExp]> = [
      [{ network: 'yes' }, /network/],
      [{ writablePaths: ['../up'] }, /writablePaths/],
      [{ writablePaths: ['/etc'] }, /writablePaths/],
      [{ writablePaths: ['a/../../b'] }, /writablePaths/],
      [{ writablePaths: Array.from({ length: 40 }, (_, i) => `d${i}`) }, /writablePaths/],
      [{ cpuSeconds: 0 }, /cpuSeconds/],
      [{ cpuSeconds: 1.5 }, /cpuSeconds/],
      [{ memoryMb: 4 }, /memoryMb/],
      [{ maxProcesses: 100_000 }, /maxProcesses/],
      [{ wallTimeSeconds: '60' }, /wallTimeSeconds/],
      [{ root: true }, /root/],
      [[1, 2], /object/],
    ];
    for (const [body, why] of bad) {
      const res = await h.server.api('PUT', `/api/sandbox/policies/${agent.id}`, { key: a.owner, body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.match(res.body.error, why);
    }
    const path = `/api/sandbox/policies/${agent.id}`;
    const json = { 'content-type': 'application/json' };
    assert.equal((await h.server.api('PUT', path, { key: a.owner, raw: '{"network":', headers: json })).status, 400);
    assert.equal((await h.server.api('PUT', path, { key: a.owner, raw: `{"writablePaths":${'['.repeat(300)}${']'.repeat(300)}}`, headers: json })).status, 400);
    assert.equal((await h.server.api('PUT', path, { key: a.owner, raw: JSON.stringify({ writablePaths: ['x'.repeat(1_100_000)] }), headers: json })).status, 413);
    assert.equal((await h.server.api('PUT', path, { key: a.viewer, body: { network: true } })).status, 403);
    assert.equal((await h.server.api('PUT', path, { key: a.owner, headers: { origin: 'https://evil.example' }, body: { network: true } })).status, 403);
    assert.equal((await h.server.api('PUT', path, { key: 'not-a-key', body: { network: true } })).status, 403);
    assert.equal((await h.server.api('PUT', '/api/sandbox/policies/no-such-agent', { key: a.owner, body: {} })).status, 404);
    const kept = await h.server.api('GET', path, { key: a.owner });
    assert.equal(kept.body.cpuSeconds, 7);
    assert.equal(kept.body.network, false);
  });

  it('keeps policies, assignments and stats within their tenant', async () => {
    const agent = await h.agent({}, a.owner);
    await h.server.api('PUT', `/api/sandbox/policies/${agent.id}`, { key: a.owner, body: { network: true } });
    const session = await h.session({ agentId: agent.id }, a.owner);
    for (const [method, path, body] of [
      ['GET', `/api/sandbox/policies/${agent.id}`, undefined],
      ['PUT', `/api/sandbox/policies/${agent.id}`, { network: false }],
      ['DELETE', `/api/sandbox/policies/${agent.id}`, undefined],
      ['POST', '/api/sandbox/assign', { sessionId: session.id }],
      ['POST', `/api/sandbox/release/${session.id}`, undefined],
    ] as const) {
      const res = await h.server.api(method, path, { key: b.owner, body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.body.code, 'NOT_FOUND');
    }
    assert.deepEqual((await h.server.api('GET', '/api/sandbox/policies', { key: b.owner })).body.policies, []);
    assert.equal((await h.server.api('POST', '/api/sandbox/assign', { key: a.owner, body: { sessionId: session.id } })).status, 201);
    assert.equal((await h.server.api('GET', '/api/sandbox/stats', { key: b.owner })).body.assigned, 0);
    assert.equal((await h.server.api('GET', '/api/sandbox/stats', { key: a.owner })).body.assigned, 1);
    assert.equal((await h.server.api('GET', `/api/sandbox/policies/${agent.id}`, { key: a.owner })).body.network, true, 'untouched by the other tenant');
    assert.equal((await h.server.api('POST', `/api/sandbox/release/${session.id}`, { key: a.owner })).status, 200);
  });

  it('assigns a prepared sandbox from the pool, refuses a second one, and releases it', async () => {
    const agent = await h.agent();
    const session = await h.session({ agentId: agent.id });
    const stats = await waitFor('a full pool', async () => {
      const res = await h.server.api('GET', '/api/sandbox/stats');
      return res.body.pool.ready === res.body.pool.target ? res.body : undefined;
    }, 30_000);
    assert.equal(stats.available, true);
    assert.equal(stats.error, null);
    assert.ok(stats.pool.target >= 1);
    const assigned = await h.server.api('POST', '/api/sandbox/assign', { body: { sessionId: session.id } });
    assert.equal(assigned.status, 201, assigned.text);
    assert.equal(assigned.body.warm, true);
    assert.match(assigned.body.sandboxId, /^sbx_/);
    assert.equal(assigned.body.agentId, agent.id);
    assert.equal(assigned.body.policy.network, false, 'an agent without a policy gets the defaults');
    const after = (await h.server.api('GET', '/api/sandbox/stats')).body;
    assert.equal(after.pool.warmAssigns, stats.pool.warmAssigns + 1);
    const again = await h.server.api('POST', '/api/sandbox/assign', { body: { sessionId: session.id } });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'CONFLICT');
    for (const body of [{}, { sessionId: '' }, { sessionId: 5 }, { sessionId: session.id, extra: 1 }]) {
      assert.equal((await h.server.api('POST', '/api/sandbox/assign', { body })).status, 400, JSON.stringify(body));
    }
    assert.equal((await h.server.api('POST', '/api/sandbox/assign', { body: { sessionId: 'no-such-session' } })).status, 404);
    const released = await h.server.api('POST', `/api/sandbox/release/${session.id}`);
    assert.equal(released.status, 200);
    assert.equal(released.body.sandboxId, assigned.body.sandboxId);
    assert.equal(released.body.released, true);
    assert.equal((await h.server.api('POST', `/api/sandbox/release/${session.id}`)).status, 404);
    assert.equal((await h.server.api('GET', `/api/internal/sandbox/sessions/${session.id}`)).body.code, 'ROUTE_NOT_FOUND', 'the runner\'s lookup is not served over HTTP');
  });

  it('releases the sandbox of a live session that is deleted', async () => {
    const agent = await h.agent({}, b.owner);
    const session = await h.session({ agentId: agent.id }, b.owner);
    assert.equal((await h.server.api('POST', '/api/sandbox/assign', { key: b.owner, body: { sessionId: session.id } })).status, 201);
    assert.equal((await h.server.api('GET', '/api/sandbox/stats', { key: b.owner })).body.assigned, 1);
    assert.equal((await h.server.api('DELETE', `/api/sessions/${session.id}`, { key: b.owner })).status, 204);
    await waitFor('the assignment released', async () => ((await h.server.api('GET', '/api/sandbox/stats', { key: b.owner })).body.assigned === 0 ? true : undefined), 15_000);
    assert.equal((await h.server.api('POST', `/api/sandbox/release/${session.id}`, { key: b.owner })).status, 404);
  });

  it('without bubblewrap: reports the missing bwrap in the stats and refuses to assign with the reason', async () => {
    const server = await startTestServer({ env: { ...h.env, ROOST_EXT_SANDBOX_BWRAP: '/nonexistent/bwrap' } });
    try {
      const stats = await server.api('GET', '/api/sandbox/stats');
      assert.equal(stats.status, 200);
      assert.equal(stats.body.available, false);
      assert.match(stats.body.error, /no bwrap executable at "\/nonexistent\/bwrap"/);
      assert.equal(stats.body.pool.ready, 0);
      const agent = await server.api('POST', '/api/agents', { body: { name: 'unboxed', model: 'claude-sonnet-5-5' } });
      const session = await server.api('POST', '/api/sessions', { body: { agentId: agent.body.id } });
      assert.equal(session.status, 201, session.text);
      const res = await server.api('POST', '/api/sandbox/assign', { body: { sessionId: session.body.id } });
      assert.equal(res.status, 503);
      assert.equal(res.body.code, 'SANDBOX_UNAVAILABLE');
      assert.match(res.body.error, /cannot sandbox a session: no bwrap executable at "\/nonexistent\/bwrap"/);
      assert.equal((await server.api('GET', '/api/sandbox/stats')).body.assigned, 0);
    } finally {
      await server.stop();
    }
  });
});
