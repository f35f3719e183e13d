// POST /webhooks/payproc with events signed by the real SDK's test header: valid, invalid, stale and
// replayed signatures; each event applied once; a subscription update older than the last one ignored;
// a failed payment's grace period, then read-only until the invoice is paid. Event times stand in for
// the clock: an event created an hour ago starts a grace period that is already over.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assertError, billingEnv, deliver, registerTenant, type Tenant } from './harness.js';

const GRACE_SECONDS = 1_800;
const now = () => Math.floor(Date.now() / 1000);

describe('billing: payment webhooks', { timeout: 60_000 }, () => {
  let stripe: FakeStripe;
  let server: TestServer;
  let workDir: string;
  let acme: Tenant;
  let acmeSub: any;

  before(async () => {
    stripe = await startFakeStripe();
    server = await startTestServer({ env: billingEnv(stripe, { ROOST_EXT_BILLING_GRACE_SECONDS: String(GRACE_SECONDS) }) });
    workDir = await mkdtemp(join(tmpdir(), 'roost-billing-'));
    acme = await registerTenant(server, 'Acme');
    const res = await server.api('POST', '/api/billing/subscription', { key: acme.key, body: { tenantId: acme.id, plan: 'pro' } });
    assert.equal(res.status, 201, res.text);
    acmeSub = stripe.subscriptions.get(res.body.subscriptionId);
  });
  after(async () => {
    await server.cleanup();
    await stripe.close();
  });

  const me = async (t: Tenant) => (await server.api('GET', '/api/tenants/me', { key: t.key })).body;
  const subscription = (changes: Record<string, unknown>) => ({ ...structuredClone(acmeSub), ...changes });
  const withPrice = (price: string) => ({ ...acmeSub.items, data: [{ ...acmeSub.items.data[0], price: { ...acmeSub.items.data[0].price, id: price } }, acmeSub.items.data[1]] });
  const createProject = (t: Tenant, name: string) => server.api('POST', '/api/projects', { key: t.key, body: { name, workingDir: workDir } });

  it('applies an event whose signature is valid', async () => {
    const event = stripe.event('customer.subscription.updated', subscription({ items: withPrice('price_roost_enterprise') }));
    const res = await deliver(server, stripe, event);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { received: true, outcome: 'applied' });
    assert.equal((await me(acme)).plan, 'enterprise');
  });

  it('refuses a missing, wrong or stale signature and a signed body that is not JSON, changing nothing', async () => {
    const event = stripe.event('customer.subscription.updated', subscription({ items: withPrice('price_roost_pro') }));
    const wrong = await deliver(server, stripe, event, { secret: 'whsec_someone_else' });
    assertError(wrong, 400, 'INVALID_SIGNATURE');
    assert.match(wrong.body.error, /does not match/);
    const stale = await deliver(server, stripe, event, { timestamp: now() - 600 });
    assertError(stale, 400, 'INVALID_SIGNATURE');
    assert.match(stale.body.error, /tolerance/);
    assertError(await deliver(server, stripe, event, { header: 'garbage' }), 400, 'INVALID_SIGNATURE');
    const unsigned = await server.api('POST', '/webhooks/payproc', { raw: JSON.stringify(event), headers: { 'content-type': 'application/json' } });
    assertError(unsigned, 400, 'INVALID_SIGNATURE');
    // The signature covers the exact bytes: the same event re-serialised with a space does not pass.
    const payload = JSON.stringify(event);
    assertError(await deliver(server, stripe, event, { raw: payload.replace('{', '{ '), header: stripe.sign(payload) }), 400, 'INVALID_SIGNATURE');
    assertError(await deliver(server, stripe, null, { raw: 'not json at all' }), 400, 'VALIDATION_ERROR');
    assertError(await server.api('POST', '/webhooks/payproc', { raw: 'x'.repeat(2 * 1024 * 1024), headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' } }), 413, 'PAYLOAD_TOO_LARGE');
    assert.equal((await me(acme)).plan, 'enterprise', 'nothing was applied');
  });

  it('applies a replayed event once', async () => {
    const failed = stripe.event('invoice.payment_failed', { id: 'in_replayed', object: 'invoice', customer: acmeSub.customer, status: 'open' });
    assert.equal((await deliver(server, stripe, failed)).body.outcome, 'applied');
    assert.equal((await me(acme)).billingStatus, 'past_due');
    const paid = stripe.event('invoice.paid', { id: 'in_replayed', object: 'invoice', customer: acmeSub.customer, status: 'paid' });
    assert.equal((await deliver(server, stripe, paid)).body.outcome, 'applied');
    // The failure again, freshly signed: recognised by its id, and the tenant stays in good standing.
    const replay = await deliver(server, stripe, failed);
    assert.equal(replay.status, 200);
    assert.deepEqual(replay.body, { received: true, duplicate: true });
    assert.equal((await me(acme)).billingStatus, 'active');
  });

  it('ignores a subscription update older than the one applied', async () => {
    const newer = stripe.event('customer.subscription.updated', subscription({ items: withPrice('price_roost_pro') }), now() + 5);
    const older = stripe.event('customer.subscription.updated', subscription({ items: withPrice('price_roost_enterprise') }), now() - 60);
    assert.equal((await deliver(server, stripe, newer)).body.outcome, 'applied');
    assert.equal((await deliver(server, stripe, older)).body.outcome, 'stale');
    assert.equal((await me(acme)).plan, 'pro', 'the newer update holds');
    const deleted = stripe.event('customer.subscription.deleted', subscription({ status: 'canceled' }), now() - 30);
    assert.equal((await deliver(server, stripe, deleted)).body.outcome, 'stale', 'an old deletion too');
    assert.equal((await me(acme)).plan, 'pro');
  });

  it('keeps a tenant whose payment failed writable through the grace period', async () => {
    const tenant = await registerTenant(server, 'Initech');
    const sub = (await server.api('POST', '/api/billing/subscription', { key: tenant.key, body: { tenantId: tenant.id, plan: 'pro' } })).body;
    await deliver(server, stripe, stripe.event('invoice.payment_failed', { id: 'in_grace', object: 'invoice', customer: sub.customerId }));
    const state = await me(tenant);
    assert.equal(state.billingStatus, 'past_due');
    assert.equal(state.readOnly, false);
    assert.ok(Date.parse(state.readOnlyAt) - Date.now() > (GRACE_SECONDS - 120) * 1000, `read-only from ${state.readOnlyAt}, a grace period from now`);
    assert.equal((await createProject(tenant, 'still fine')).status, 201);
  });

  it('makes a tenant read-only once the grace period is over, and writable again when it pays', async () => {
    const tenant = await registerTenant(server, 'Hooli');
    const sub = (await server.api('POST', '/api/billing/subscription', { key: tenant.key, body: { tenantId: tenant.id, plan: 'pro' } })).body;
    const failedAt = now() - GRACE_SECONDS - 60;
    await deliver(server, stripe, stripe.event('invoice.payment_failed', { id: 'in_over', object: 'invoice', customer: sub.customerId }, failedAt));
    const state = await me(tenant);
    assert.deepEqual([state.billingStatus, state.readOnly], ['past_due', true]);
    const refused = await createProject(tenant, 'too late');
    assertError(refused, 403, 'TENANT_READ_ONLY');
    assert.match(refused.body.error, /payment/);
    assertError(await server.api('POST', '/api/tenants/me/members', { key: tenant.key, body: { role: 'viewer' } }), 403, 'TENANT_READ_ONLY');
    assert.equal((await server.api('GET', '/api/projects', { key: tenant.key })).status, 200, 'reads still work');
    const socket = await server.ws({ key: tenant.key });
    socket.send({ type: 'agent_reward', agentId: 'any', microUnits: 1 });
    assert.equal((await socket.next((m) => m.type === 'error')).code, 'TENANT_READ_ONLY', 'nor over the WebSocket');
    await socket.close();
    assert.equal((await server.api('GET', `/api/billing/subscription/${tenant.id}`, { key: tenant.key })).status, 200, 'billing stays open');
    assert.equal((await createProject(acme, 'others unaffected')).status, 201);

    await deliver(server, stripe, stripe.event('invoice.paid', { id: 'in_over', object: 'invoice', customer: sub.customerId }));
    const paid = await me(tenant);
    assert.deepEqual([paid.billingStatus, paid.readOnly, paid.readOnlyAt], ['active', false, null]);
    assert.equal((await createProject(tenant, 'paid up')).status, 201);
  });

  it('stores events about customers it does not know, and kinds it does not act on, without acting', async () => {
    assert.equal((await deliver(server, stripe, stripe.event('invoice.payment_failed', { id: 'in_x', object: 'invoice', customer: 'cus_nobody' }))).body.outcome, 'unknown_customer');
    assert.equal((await deliver(server, stripe, stripe.event('charge.refunded', { id: 'ch_1', object: 'charge', customer: acmeSub.customer }))).body.outcome, 'not_handled');
    assert.equal((await me(acme)).billingStatus, 'active');
  });
});
