// Billing against the fake Stripe API, driven by the real `stripe` SDK inside the billing extension:
// subscribe, upgrade, cancel (at period end, at once), usage from the credit ledger reported once even
// when retried, invoices, prices by tier, and nobody else's billing.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { assertError, billingEnv, deliver, registerTenant, type Tenant } from './harness.js';

const MODEL = 'claude-sonnet-5-5';
/** The free plan's agents and projects here (ROOST_PLANS): one each, so a subscription lifts a limit a create met. */
const FREE_AGENTS = 1;
const FREE = { agents: FREE_AGENTS, projects: 1 };

describe('billing: subscriptions, usage and invoices', { timeout: 90_000 }, () => {
  let stripe: FakeStripe;
  let anthropic: FakeAnthropic;
  let server: TestServer;
  let acme: Tenant;
  let globex: Tenant;

  before(async () => {
    stripe = await startFakeStripe();
    anthropic = await startFakeAnthropic({ apiKey: 'test', script: [{ text: 'Done.', usage: { input_tokens: 1_000, output_tokens: 200 } }] });
    server = await startTestServer({ env: { ...billingEnv(stripe, { ROOST_PLANS: JSON.stringify({ free: FREE }) }), ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url } });
    acme = await registerTenant(server, 'Acme');
    globex = await registerTenant(server, 'Globex');
  });
  after(async () => {
    await server.cleanup();
    await stripe.close();
    await anthropic.close();
  });

  const me = async (t: Tenant) => (await server.api('GET', '/api/tenants/me', { key: t.key })).body;

  it('subscribes a tenant: a customer and a subscription at Stripe, and the plan\'s limits in the kernel', async () => {
    assert.equal((await me(acme)).plan, 'free');
    const createAgent = (name: string) => server.api('POST', '/api/agents', { key: acme.key, body: { name, model: MODEL } });
    assert.equal((await createAgent('first')).status, 201);
    assert.equal((await createAgent('second')).body.code, 'PLAN_LIMIT', 'the free plan allows one agent');
    const workingDir = await mkdtemp(join(tmpdir(), 'roost-billing-'));
    const createProject = (name: string) => server.api('POST', '/api/projects', { key: acme.key, body: { name, workingDir } });
    assert.equal((await createProject('first')).status, 201);
    assert.equal((await createProject('second')).body.code, 'PLAN_LIMIT', 'the free plan allows one project');
    const res = await server.api('POST', '/api/billing/subscription', { key: acme.key, body: { tenantId: acme.id, plan: 'pro' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.plan, 'pro');
    assert.equal(res.body.status, 'active');
    assert.match(res.body.customerId, /^cus_/);
    const sub = stripe.subscriptions.get(res.body.subscriptionId);
    assert.ok(sub, 'the subscription exists at Stripe');
    assert.deepEqual(sub.items.data.map((i: any) => i.price.id), ['price_roost_pro', 'price_roost_credits']);
    assert.equal(stripe.customers.get(res.body.customerId).metadata.tenantId, acme.id);
    const after = await me(acme);
    assert.equal(after.plan, 'pro');
    assert.equal(after.billingStatus, 'active');
    assert.equal(after.limits.agents, 250);
    // Agents and projects check against the new plan at once (each kept the old one until plans announced the change).
    assert.equal((await createAgent('second')).status, 201);
    assert.equal((await createProject('second')).status, 201);
    const read = await server.api('GET', `/api/billing/subscription/${acme.id}`, { key: acme.key });
    assert.equal(read.status, 200);
    assert.equal(read.body.subscriptionId, res.body.subscriptionId);
  });

  it('upgrades to another plan on the same subscription', async () => {
    const before_ = (await server.api('GET', `/api/billing/subscription/${acme.id}`, { key: acme.key })).body;
    const res = await server.api('POST', '/api/billing/subscription', { key: acme.key, body: { tenantId: acme.id, plan: 'enterprise' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.plan, 'enterprise');
    assert.equal(res.body.subscriptionId, before_.subscriptionId, 'the same subscription, with a new price');
    assert.deepEqual(stripe.subscriptions.get(res.body.subscriptionId).items.data.map((i: any) => i.price.id), ['price_roost_enterprise', 'price_roost_credits']);
    assert.equal(stripe.customers.size, 1, 'no second customer');
    assert.equal((await me(acme)).plan, 'enterprise');
  });

  it('lists the invoices, newest first', async () => {
    const res = await server.api('GET', `/api/billing/invoices/${acme.id}`, { key: acme.key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.invoices.length, 2);
    assert.deepEqual(res.body.invoices.map((i: any) => i.amountDue), [49_900, 2_900]);
    assert.equal(res.body.invoices[0].status, 'paid');
    assert.match(res.body.invoices[0].periodStart, /^\d{4}-\d{2}-\d{2}T/);
  });

  it('reports the ledger\'s usage once, even when asked again and when the answer is lost and retried', async () => {
    const agent = (await server.api('POST', '/api/agents', { key: acme.key, body: { name: 'worker', model: MODEL } })).body;
    const runTurn = async () => {
      const started = await server.api('POST', '/api/sessions', { key: acme.key, body: { agentId: agent.id, initialPrompt: 'Work.' } });
      assert.equal(started.status, 201, started.text);
      await waitFor('the turn', async () => ((await server.api('GET', `/api/sessions/${started.body.id}`, { key: acme.key })).body.turns >= 1 ? true : undefined), 30_000);
    };
    await runTurn();
    // 1,000 input and 200 output tokens at 3,000 / 15,000 microUnits per 1k: 6,000 microUnits.
    const first = await server.api('GET', `/api/billing/usage/${acme.id}`, { key: acme.key });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.spentMicroUnits, 6_000);
    assert.equal(first.body.reportedMicroUnits, 6_000);
    assert.equal(stripe.meterEvents.length, 1);
    assert.equal(stripe.meterEvents[0].payload.value, '6000');
    assert.equal(stripe.meterEvents[0].payload.stripe_customer_id, first.body.history[0] && (await server.api('GET', `/api/billing/subscription/${acme.id}`, { key: acme.key })).body.customerId);

    const again = await server.api('GET', `/api/billing/usage/${acme.id}`, { key: acme.key });
    assert.equal(again.body.reportedMicroUnits, 6_000);
    assert.equal(stripe.meterEvents.length, 1, 'nothing new to report: no second event');

    await runTurn();
    stripe.loseNextAnswer('/v1/billing/meter_events');
    const retried = await server.api('GET', `/api/billing/usage/${acme.id}`, { key: acme.key });
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.spentMicroUnits, 12_000);
    assert.equal(stripe.meterEvents.length, 2, 'the retried report is one event');
    assert.equal(stripe.meterEvents[1].payload.value, '12000', 'the running total of the period (the meter keeps the last)');
    const posts = stripe.requests.filter((r) => r.path === '/v1/billing/meter_events');
    assert.equal(posts.length, 3, 'one report, then one lost and retried');
    assert.ok(posts[1]!.idempotencyKey && posts[1]!.idempotencyKey === posts[2]!.idempotencyKey, 'the retry carried the same Idempotency-Key');
    assert.deepEqual(retried.body.history.map((h: any) => h.microUnits), [6_000, 6_000]);
  });

  it('prices credits by the tenant\'s tier and refuses a bad amount', async () => {
    const free = await server.api('GET', '/api/billing/calculate?credits=10', { key: globex.key });
    assert.deepEqual(free.body, { credits: 10, plan: 'free', currency: 'usd', unitAmountCents: 100, amountCents: 1_000 });
    const enterprise = await server.api('GET', '/api/billing/calculate?credits=10', { key: acme.key });
    assert.equal(enterprise.body.amountCents, 750);
    for (const bad of ['-1', 'ten', '1.5', '', '99999999999']) {
      assertError(await server.api('GET', `/api/billing/calculate?credits=${bad}`, { key: acme.key }), 400, 'VALIDATION_ERROR');
    }
  });

  it('refuses another tenant\'s billing as unknown, and changes by anyone but the owner', async () => {
    for (const path of [`/api/billing/subscription/${acme.id}`, `/api/billing/usage/${acme.id}`, `/api/billing/invoices/${acme.id}`]) {
      assertError(await server.api('GET', path, { key: globex.key }), 404, 'NOT_FOUND');
    }
    assertError(await server.api('POST', '/api/billing/subscription', { key: globex.key, body: { tenantId: acme.id, plan: 'pro' } }), 404, 'NOT_FOUND');
    assertError(await server.api('POST', `/api/billing/subscription/${acme.id}/cancel`, { key: globex.key, body: {} }), 404, 'NOT_FOUND');
    const operator = (await server.api('POST', '/api/tenants/me/members', { key: acme.key, body: { role: 'operator' } })).body.apiKey;
    assertError(await server.api('POST', `/api/billing/subscription/${acme.id}/cancel`, { key: operator, body: {} }), 403, 'FORBIDDEN');
    assert.equal((await server.api('GET', `/api/billing/subscription/${acme.id}`, { key: operator })).status, 200, 'members read their own tenant\'s billing');
    assert.equal((await server.api('GET', `/api/billing/subscription/${acme.id}`)).status, 200, 'the server owner reads every tenant\'s');
    assert.equal((await me(acme)).plan, 'enterprise', 'nothing changed');
  });

  it('refuses bad subscription requests with a clear error', async () => {
    const post = (body: unknown) => server.api('POST', '/api/billing/subscription', { key: globex.key, body });
    assertError(await post({ tenantId: globex.id }), 400, 'VALIDATION_ERROR');
    assertError(await post({ tenantId: globex.id, plan: 'free' }), 400, 'VALIDATION_ERROR');
    assertError(await post({ tenantId: globex.id, plan: 'platinum' }), 400, 'VALIDATION_ERROR');
    assertError(await post({ tenantId: globex.id, plan: 'pro', extra: 1 }), 400, 'VALIDATION_ERROR');
    assertError(await post({ tenantId: 42, plan: 'pro' }), 400, 'VALIDATION_ERROR');
    assertError(await server.api('POST', '/api/billing/subscription', { key: globex.key, raw: '{"tenantId":' }), 400, 'VALIDATION_ERROR');
    assertError(await server.api('POST', '/api/billing/subscription', { key: globex.key, raw: '['.repeat(5_000) + ']'.repeat(5_000) }), 400, 'VALIDATION_ERROR');
    assertError(await server.api('POST', '/api/billing/subscription', { key: globex.key, raw: JSON.stringify({ tenantId: 'x'.repeat(2 * 1024 * 1024), plan: 'pro' }) }), 413, 'PAYLOAD_TOO_LARGE');
    assertError(await server.api('POST', '/api/billing/subscription', { body: { tenantId: 'no-such-tenant', plan: 'pro' } }), 404, 'NOT_FOUND');
    assertError(await server.api('POST', `/api/billing/subscription/${globex.id}/cancel`, { key: globex.key, body: {} }), 404, 'NOT_FOUND');
    assertError(await server.api('POST', '/api/billing/subscription', { body: { tenantId: globex.id, plan: 'pro' }, headers: { origin: 'https://evil.example' } }), 403, 'FORBIDDEN_ORIGIN');
    assert.equal(stripe.customers.size, 1, 'nothing reached Stripe');
    assert.equal((await me(globex)).plan, 'free');
  });

  it('cancels at the period end (the plan stays), then at once (back to free)', async () => {
    const later = await server.api('POST', `/api/billing/subscription/${acme.id}/cancel`, { key: acme.key, body: {} });
    assert.equal(later.status, 200, later.text);
    assert.equal(later.body.cancelAtPeriodEnd, true);
    assert.equal(later.body.status, 'active');
    assert.equal((await me(acme)).plan, 'enterprise', 'paid until the period ends');
    const now = await server.api('POST', `/api/billing/subscription/${acme.id}/cancel`, { key: acme.key, body: { atPeriodEnd: false } });
    assert.equal(now.status, 200, now.text);
    assert.equal(now.body.status, 'canceled');
    assert.equal(stripe.subscriptions.get(now.body.subscriptionId).status, 'canceled');
    const tenant = await me(acme);
    assert.deepEqual([tenant.plan, tenant.billingStatus, tenant.limits.agents], ['free', 'canceled', FREE_AGENTS]);
  });

  it('subscribes again after a cancellation: the same customer, a new subscription; events about the old one change nothing', async () => {
    const old = (await server.api('GET', `/api/billing/subscription/${acme.id}`, { key: acme.key })).body;
    const again = await server.api('POST', '/api/billing/subscription', { key: acme.key, body: { tenantId: acme.id, plan: 'pro' } });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.customerId, old.customerId);
    assert.notEqual(again.body.subscriptionId, old.subscriptionId);
    const late = stripe.event('customer.subscription.deleted', stripe.subscriptions.get(old.subscriptionId), Math.floor(Date.now() / 1000) + 60);
    assert.equal((await deliver(server, stripe, late)).body.outcome, 'stale');
    assert.deepEqual([(await me(acme)).plan, (await me(acme)).billingStatus], ['pro', 'active']);
  });
});
