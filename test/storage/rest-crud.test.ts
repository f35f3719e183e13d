// Projects, agents, credits and sessions through the REST API, the same assertions on SQLite and on a
// real PostgreSQL: what the stores write comes back the same (numbers as numbers, case-insensitive
// search, paging totals), and every extension's migrations ran.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { stopSharedPostgres } from '../helpers/postgres.js';
import { startHarness, type Harness } from '../sessions/harness.js';
import { kernelMigrations } from '../../kernel/storage/migrations.js';
import { STORES, storeEnv } from './support.js';

after(() => stopSharedPostgres());

for (const store of STORES) {
  describe(`REST CRUD on ${store}`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ env: await storeEnv(store) });
    });
    after(() => h?.close());
    const api = (method: string, path: string, body?: unknown) => h.server.api(method, path, body === undefined ? {} : { body });

    it('projects: create, search ignoring case, page, update, delete', async () => {
      const dir = (await h.project()).dir;
      for (const name of ['Alpha_one', 'alpha%two', 'beta']) assert.equal((await api('POST', '/api/projects', { name, workingDir: dir })).status, 201);
      const found = await api('GET', '/api/projects?search=ALPHA');
      assert.deepEqual(found.body.projects.map((p: any) => p.name).sort(), ['Alpha_one', 'alpha%two']);
      assert.deepEqual((await api('GET', '/api/projects?search=a%25t')).body.projects.map((p: any) => p.name), ['alpha%two'], '% is matched literally');
      const page = await api('GET', '/api/projects?limit=1&offset=1&total=true');
      assert.equal(page.body.total, 4);
      assert.equal(typeof page.body.total, 'number');
      const beta = found.body.projects[0];
      const updated = await api('PUT', `/api/projects/${beta.id}`, { name: 'renamed' });
      assert.equal(updated.status, 200, updated.text);
      assert.equal((await api('GET', `/api/projects/${beta.id}`)).body.name, 'renamed');
      assert.equal((await api('DELETE', `/api/projects/${beta.id}`)).status, 204);
      assert.equal((await api('GET', `/api/projects/${beta.id}`)).status, 404);
    });

    it('agents: create, list as JSON built by the database, update, delete', async () => {
      const agent = await h.agent({ name: 'Reviewer', systemPrompt: 'Review.' });
      const list = await api('GET', '/api/agents?search=review');
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body.agents.map((a: any) => a.id), [agent.id]);
      assert.deepEqual(list.body.agents[0].mcp_tool_permissions, []);
      const updated = await api('PUT', `/api/agents/${agent.id}`, { systemPrompt: 'Review harder.' });
      assert.equal(updated.body.systemPrompt, 'Review harder.');
      assert.equal((await api('DELETE', `/api/agents/${agent.id}`)).status, 204);
      assert.equal((await api('GET', `/api/agents/${agent.id}`)).status, 404);
    });

    it('credits: balances and sums are numbers', async () => {
      const agent = await h.agent();
      const before = (await api('GET', `/api/agents/${agent.id}/balance`)).body;
      assert.equal(typeof before.balance, 'number');
      assert.equal(before.reserved, 0);
      const funded = await api('POST', `/api/agents/${agent.id}/fund`, { microUnits: 250_000, reason: 'top-up' });
      assert.equal(funded.status, 200, funded.text);
      assert.equal(funded.body.balance, before.balance + 250_000);
      const after = (await api('GET', `/api/agents/${agent.id}/balance`)).body;
      assert.deepEqual(after, { ...before, balance: before.balance + 250_000 });
    });

    it('sessions: create, list with totals, rename, delete', async () => {
      const agent = await h.agent();
      const a = await h.session({ agentId: agent.id, name: 'first', timeoutMinutes: 5 });
      const b = await h.session({ agentId: agent.id, initialPrompt: 'Hello?' });
      const page = await api('GET', '/api/sessions?limit=1&offset=0&total=true');
      assert.equal(page.body.total, 2);
      assert.equal(page.body.hasMore, true);
      const renamed = await api('PUT', `/api/sessions/${a.id}`, { name: 'renamed' });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal((await h.get(a.id)).name, 'renamed');
      // The fake model's reply is counted: bigint columns come back as numbers.
      const done = await h.until(b.id, (s) => s.usage.outputTokens > 0);
      assert.equal(typeof done.cost, 'number');
      assert.equal(typeof done.usage.inputTokens, 'number');
      for (const id of [a.id, b.id]) assert.equal((await api('DELETE', `/api/sessions/${id}`)).status, 204);
      assert.equal((await api('GET', `/api/sessions/${a.id}`)).status, 404);
    });

    it('reports every schema version, migrations included', async () => {
      const health = (await api('GET', '/api/health')).body;
      assert.equal(health.schemaVersions.kernel, kernelMigrations.length);
      for (const name of ['projects', 'agents', 'credits', 'sessions']) assert.ok(health.schemaVersions[name] >= 1, `${name}: ${JSON.stringify(health.schemaVersions)}`);
    });
  });
}
