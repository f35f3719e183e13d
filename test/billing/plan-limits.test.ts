// Every limit of a plan (ROOST_PLANS sets small ones here) refused with 403 PLAN_LIMIT naming the limit,
// in the kernel (members) and in the extensions that create what a plan counts (agents, projects,
// concurrent sessions, credits a month); the limits shown at /api/tenants/me.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { registerTenant, type Tenant } from './harness.js';

const FREE = { agents: 2, concurrentSessions: 1, projects: 1, creditsPerMonth: 12, members: 2 };
const MODEL = 'claude-sonnet-5-5';

function assertPlanLimit(res: ApiResponse, limit: string, allowed: number): void {
  assert.equal(res.status, 403, res.text);
  assert.equal(res.body.code, 'PLAN_LIMIT');
  assert.equal(res.body.details.limit, limit);
  assert.equal(res.body.details.allowed, allowed);
  assert.equal(res.body.details.plan, 'free');
  assert.match(res.body.error, new RegExp(`free plan allows ${allowed} ${limit}`));
}

describe('plan limits', { timeout: 60_000 }, () => {
  let anthropic: FakeAnthropic;
  let server: TestServer;
  let workDir: string;
  let tenant: Tenant;

  before(async () => {
    // Turns never finish: a started session keeps its place.
    anthropic = await startFakeAnthropic({ apiKey: 'test', script: [{ hang: true }] });
    server = await startTestServer({ env: { ROOST_PLANS: JSON.stringify({ free: FREE }), ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url } });
    workDir = await mkdtemp(join(tmpdir(), 'roost-limits-'));
    tenant = await registerTenant(server, 'Small');
  });
  after(async () => {
    await server.cleanup();
    await anthropic.close();
  });

  const post = (path: string, body: unknown) => server.api('POST', path, { key: tenant.key, body });

  it('shows the plan\'s limits at /api/tenants/me', async () => {
    const me = (await server.api('GET', '/api/tenants/me', { key: tenant.key })).body;
    assert.equal(me.plan, 'free');
    assert.deepEqual(me.limits, FREE);
    assert.deepEqual([me.billingStatus, me.readOnly], ['none', false]);
  });

  it('refuses the agent past the limit', async () => {
    for (const name of ['one', 'two']) assert.equal((await post('/api/agents', { name, model: MODEL })).status, 201);
    assertPlanLimit(await post('/api/agents', { name: 'three', model: MODEL }), 'agents', 2);
    const agents = (await server.api('GET', '/api/agents', { key: tenant.key })).body.agents;
    assert.equal(agents.length, 2, 'nothing was created');
    // A deleted agent frees its place, once: the count the limit reads goes down with it.
    assert.equal((await server.api('DELETE', `/api/agents/${agents[1].id}`, { key: tenant.key })).status, 204);
    assert.equal((await post('/api/agents', { name: 'three', model: MODEL })).status, 201);
    assertPlanLimit(await post('/api/agents', { name: 'four', model: MODEL }), 'agents', 2);
  });

  it('refuses the project past the limit', async () => {
    assert.equal((await post('/api/projects', { name: 'first', workingDir: workDir })).status, 201);
    assertPlanLimit(await post('/api/projects', { name: 'second', workingDir: workDir }), 'projects', 1);
  });

  it('refuses the member past the limit', async () => {
    assert.equal((await post('/api/tenants/me/members', { role: 'viewer' })).status, 201);
    assertPlanLimit(await post('/api/tenants/me/members', { role: 'viewer' }), 'members', 2);
  });

  it('refuses credits past the month\'s allowance, by funding or by grant', async () => {
    const agent = (await server.api('GET', '/api/agents', { key: tenant.key })).body.agents[0];
    // New wallets' initial grants come with their agents and do not count.
    const funded = await post(`/api/agents/${agent.id}/fund`, { microUnits: 6_000_000 });
    assert.equal(funded.status, 200, funded.text);
    assertPlanLimit(await post(`/api/agents/${agent.id}/fund`, { microUnits: 7_000_000 }), 'creditsPerMonth', 12);
    assertPlanLimit(await post(`/api/wallets/${agent.wallet}/credits`, { microUnits: 6_500_000 }), 'creditsPerMonth', 12);
    assert.equal((await post(`/api/wallets/${agent.wallet}/credits`, { microUnits: 6_000_000 })).status, 200, 'up to the limit exactly');
    assertPlanLimit(await post(`/api/agents/${agent.id}/fund`, { microUnits: 1 }), 'creditsPerMonth', 12);
  });

  it('refuses the session past the concurrent limit', async () => {
    const agent = (await server.api('GET', '/api/agents', { key: tenant.key })).body.agents[1];
    const first = await post('/api/sessions', { agentId: agent.id, initialPrompt: 'Think for a long time.' });
    assert.equal(first.status, 201, first.text);
    await waitFor('the first session running', async () => ((await server.api('GET', `/api/sessions/${first.body.id}`, { key: tenant.key })).body.status === 'running' ? true : undefined), 20_000);
    assertPlanLimit(await post('/api/sessions', { agentId: agent.id, initialPrompt: 'Me too.' }), 'concurrentSessions', 1);
  });

  it('says which variable to set while Stripe is not configured', async () => {
    const res = await post('/api/billing/subscription', { tenantId: tenant.id, plan: 'pro' });
    assert.equal(res.status, 503, res.text);
    assert.match(res.body.error, /ROOST_EXT_BILLING_STRIPE_API_KEY/);
    assert.equal((await server.api('GET', '/api/tenants/me', { key: tenant.key })).body.plan, 'free');
  });

  it('leaves the server owner\'s tenant to its own plan', async () => {
    for (const name of ['a', 'b', 'c']) assert.equal((await server.api('POST', '/api/agents', { body: { name, model: MODEL } })).status, 201);
  });
});
