// PostgreSQL stopped at once (`pg_ctl stop -m immediate`) under two instances on one database, then
// started again: while it is down every route answers 503 with Retry-After (never 500), /health/ready
// included, and an extension killed meanwhile cannot start again (its role and relay set-up, or its
// migrations, meet the refused connection); once the database is back both instances serve projects and
// agents again by themselves, and are ready. Waiting out the outage spends no crash budget (of 1 here).
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { pluginInfo } from '../fixtures/extensions/helpers.js';
import { waitFor } from '../helpers/wait.js';

const MODEL = 'claude-sonnet-4-5';

describe('a PostgreSQL restart under two instances', () => {
  let postgres: TestPostgres;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    postgres = await startPostgres();
    const databaseUrl = await postgres.createDatabase();
    const env = { ROOST_CRASH_BUDGET: '1' };
    [a, b] = await Promise.all([startTestServer({ databaseUrl, env }), startTestServer({ databaseUrl, env })]);
  });
  after(async () => {
    await Promise.all([a?.cleanup(), b?.cleanup()]);
    await postgres?.stop();
  });

  const ROUTES = ['/api/projects', '/api/agents', '/health/ready'];

  const serves = async (server: TestServer, n: number) => {
    const dir = await mkdtemp(join(tmpdir(), 'roost-pg-restart-'));
    const project = await server.api('POST', '/api/projects', { body: { name: `p${n}`, workingDir: dir }, timeoutMs: 15_000 });
    if (project.status !== 201) return undefined;
    const agent = await server.api('POST', '/api/agents', { body: { name: `a${n}`, model: MODEL }, timeoutMs: 15_000 });
    if (agent.status !== 201) return undefined;
    const listed = await Promise.all(['/api/projects', '/api/agents'].map((path) => server.api('GET', path, { timeoutMs: 15_000 })));
    return listed.every((res) => res.status === 200) ? true : undefined;
  };

  it('answers 503 with Retry-After while the database is down, and serves again by itself once it is back', async () => {
    for (const [i, server] of [a, b].entries()) assert.equal(await serves(server, i), true, 'serves before the outage');
    const victims = [await pluginInfo(a, 'projects'), await pluginInfo(b, 'agents')];

    await postgres.stopImmediately();
    // A crash during the outage: the restart cannot start them until the database is back.
    for (const victim of victims) process.kill(victim.pid, 'SIGKILL');
    // Each route of each instance, a few rounds: the first requests meet pooled connections that died,
    // later ones a database that refuses connections; none may answer 500.
    for (let round = 0; round < 3; round++) {
      for (const server of [a, b]) {
        for (const path of ROUTES) {
          const res = await server.api('GET', path, { timeoutMs: 30_000 });
          assert.equal(res.status, 503, `${path} during the outage: ${res.status} ${res.text}`);
          assert.match(res.headers.get('retry-after') ?? '', /^\d+$/, `${path} carries Retry-After: ${res.text}`);
        }
      }
    }
    const ready = await a.api('GET', '/health/ready');
    assert.ok(ready.body.reasons.some((r: string) => /kernel database/.test(r)), `readiness names the database: ${ready.text}`);
    const health = await a.api('GET', '/api/health');
    assert.equal(health.body.status, 'degraded', health.text);
    assert.ok(health.body.reasons.some((r: string) => /kernel database/.test(r)), `/api/health gives the same reasons: ${health.text}`);

    await postgres.restart();
    let n = 10;
    for (const server of [a, b]) {
      await waitFor('the instance to serve projects and agents again', () => serves(server, n++), 60_000);
      await waitFor('the instance to be ready again', async () => ((await server.api('GET', '/health/ready')).status === 200 ? true : undefined), 60_000);
    }
    const [projects, agents] = [await pluginInfo(a, 'projects'), await pluginInfo(b, 'agents')];
    for (const [before, now] of [[victims[0], projects], [victims[1], agents]]) {
      assert.equal(now.state, 'running', `${now.name} runs again: ${JSON.stringify(now)}`);
      assert.notEqual(now.pid, before.pid, `${now.name} was started anew`);
    }
    for (const server of [a, b]) assert.doesNotMatch(server.log(), /\baccess \S+ \S+ 5(?!03)\d\d /, 'no request was answered 5xx other than 503');
  });
});
