// POST /api/selftest/run: the server checks itself (stores, audit chain, every extension's health, a
// session round trip through REST, WebSocket and MCP on the echo provider), reports each check — a
// broken one as failed —, reaches itself at the address it is bound to, runs once at a time, and
// answers the owner only. The file's one server listens on another loopback address (--host 127.0.0.2),
// so every end-to-end check below also proves the self-test reaches it where it listens, not at 127.0.0.1.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../lib/storage.js';
import { registerTenant } from '../agents/support.js';
import { loadFixture } from '../fixtures/extensions/helpers.js';
import { sharedPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Check = { name: string; scope: string; status: string; detail: string };

const onPostgres = process.env.ROOST_TEST_POSTGRES === '1';
const E2E = ['REST: create an agent on the echo provider and read it back', 'REST and WebSocket: a session answers a turn sent over each, and the subscriber sees both', "MCP: svc_send_message gets the echo agent's answer"];

describe('self-test', () => {
  let server: TestServer;
  let databaseUrl: string | undefined;
  const run = async (scope: string, on = server) => {
    // It starts every loaded extension, one after another: on a busy machine that is minutes.
    const res = await on.api('POST', '/api/selftest/run', { body: { scope }, timeoutMs: 300_000 });
    assert.equal(res.status, 200, res.text);
    return res.body as { passed: boolean; counts: { failed: number; skipped: number }; checks: Check[] };
  };
  const check = (report: { checks: Check[] }, name: string) => {
    const found = report.checks.find((c) => c.name === name);
    assert.ok(found, `${name} in ${report.checks.map((c) => c.name).join(', ')}`);
    return found;
  };

  before(async () => {
    databaseUrl = onPostgres ? await (await sharedPostgres()).createDatabase() : undefined;
    server = await startTestServer({ extraArgs: ['--host', '127.0.0.2'], ...(databaseUrl ? { databaseUrl } : {}) });
  });
  after(() => server?.cleanup());

  it('passes on a healthy server, with every check named, and leaves nothing behind', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.2:/);
    const sessionsBefore = (await server.api('GET', '/api/sessions?total=true')).body.total;
    const report = await run('all');
    const failed = report.checks.filter((c) => c.status === 'failed');
    assert.equal(report.passed, true, JSON.stringify(failed));
    assert.equal(report.counts.failed, 0);
    check(report, 'kernel database answers and is intact');
    check(report, 'audit chain verifies against its checkpoint');
    // Each extension on the TypeScript frame checked its own store: on SQLite and on PostgreSQL alike.
    for (const name of ['agents', 'sessions', 'operations']) {
      assert.match(check(report, `extension ${name} starts and answers`).detail, new RegExp(`^healthy: store answers \\((sqlite3|pg), \\d+ migrations\\)`));
    }
    for (const name of E2E) assert.equal(check(report, name).status, 'passed', JSON.stringify(check(report, name)));
    assert.match(check(report, E2E[1]!).detail, /a turn over REST and one over the WebSocket answered/);
    if (!onPostgres) check(report, 'extension database agents.sqlite is intact');

    const agents = (await server.api('GET', '/api/agents')).body.agents;
    assert.equal(agents.filter((a: { name: string }) => a.name.startsWith('selftest-')).length, 0, 'its agents are deleted');
    assert.equal((await server.api('GET', '/api/sessions?total=true')).body.total, sessionsBefore, 'its sessions are deleted');
    const members = (await server.api('GET', '/api/tenants/me/members')).body.members;
    assert.equal(members.filter((m: { label: string }) => m.label === 'selftest').length, 0, 'its key is revoked');
    const audit = (await server.api('GET', '/api/audit-log?action=selftest.run')).body.entries;
    assert.equal(audit[0].detail.passed, true);
  });

  it('reports an extension that never starts, and a store short of its migrations, as failed', async () => {
    assert.equal((await loadFixture(server, 'fx-noready')).status, 503);
    const withNoready = await run('unit');
    assert.equal(withNoready.passed, false);
    const noready = check(withNoready, 'extension fx-noready starts and answers');
    assert.equal(noready.status, 'failed');
    assert.match(noready.detail, /fx-noready/);
    assert.equal((await server.api('POST', '/api/plugins/fx-noready/unload')).status, 200);

    // activity's store answers, but holds a migration its code does not know: its health says so.
    assert.equal((await server.api('GET', '/api/feed/history')).status, 200);
    const bogus = { name: '999_from_elsewhere', batch: 99, migration_time: new Date().toISOString() };
    const store = databaseUrl
      ? openDatabase({ client: 'pg', connection: databaseUrl, schema: 'roost_ext_activity' })
      : openDatabase({ client: 'sqlite3', connection: { filename: join(server.dataDir, 'extensions', 'activity', 'activity.sqlite') } });
    try {
      await store('knex_migrations').insert(bogus);
      const broken = await run('unit');
      assert.equal(broken.passed, false);
      const feed = check(broken, 'extension activity starts and answers');
      assert.equal(feed.status, 'failed');
      assert.match(feed.detail, /^unhealthy: 503 its schema holds (\d+) of the (\d+) migrations this code knows$/);
    } finally {
      await store('knex_migrations').where({ name: bogus.name }).delete();
      await store.destroy();
    }
    assert.equal((await run('unit')).passed, true);
  });

  it('runs only the scope asked for, and skips the round trips without the agents extension', async () => {
    const e2e = await run('e2e');
    assert.deepEqual(e2e.checks.map((c) => [c.scope, c.name]), E2E.map((name) => ['e2e', name]));
    // Reached at 127.0.0.2, where the server listens: every round trip ran and passed.
    assert.equal(e2e.passed, true, JSON.stringify(e2e.checks));
    assert.equal(e2e.counts.skipped, 0);
    assert.equal((await server.api('POST', '/api/plugins/agents/unload?force=true')).status, 200);
    const unit = await run('unit');
    assert.ok(unit.checks.every((c) => c.scope === 'unit'));
    assert.equal(check(unit, 'extension agents starts and answers').status, 'skipped');
    const withoutAgents = await run('e2e');
    assert.equal(withoutAgents.checks[0]!.status, 'skipped');
    assert.match(withoutAgents.checks[0]!.detail, /agents extension is not loaded/);
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

