// The billing and plan page against the fake Stripe API (driven by the real SDK inside the billing
// extension): plan, limits and use; subscribing from the page; the invoice it made; the calculator at
// each tier; a failed payment past its grace period shown as read-only, on this page and every other.
// And a server without billing configured: the page shows the server's sentence naming the variable.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe.js';
import type { TestServer } from '../helpers/server.js';
import { billingEnv, deliver, registerTenant, type Tenant } from '../billing/harness.js';
import { launchBrowser, seriousViolations, startDashboard, type Dashboard } from './browser.js';

const GRACE_SECONDS = 1_800;

// One Chromium for both servers of the file.
let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(() => browser.close());

describe('billing and plan in the dashboard', () => {
  let stripe: FakeStripe;
  let d: Dashboard;
  let acme: Tenant;
  before(async () => {
    stripe = await startFakeStripe();
    d = await startDashboard({ browser, env: billingEnv(stripe, { ROOST_EXT_BILLING_GRACE_SECONDS: String(GRACE_SECONDS) }) });
    acme = await registerTenant(d.server, 'Acme');
    const agent = await d.server.api('POST', '/api/agents', { key: acme.key, body: { name: 'Biller' } });
    assert.equal(agent.status, 201, agent.text);
    const { page } = d;
    await page.goto('/ui/');
    await page.evaluate((key) => sessionStorage.setItem('roost.apiKey', key), acme.key);
    await page.reload();
    await page.getByText('Acme · owner').waitFor();
  });
  after(async () => {
    await d.close();
    await stripe.close();
  });

  it('shows the plan, its limits and use, and prices credits at the tenant\'s tier', async () => {
    const { page } = d;
    await d.open('billing', 'Billing and plan');
    await page.getByText('Acme · owner').waitFor();
    const limits = page.getByRole('table', { name: 'Plan limits and use' });
    await limits.getByRole('row', { name: /Agents 1 25/ }).waitFor();
    await limits.getByRole('row', { name: /Members \(keys\) 1 10/ }).waitFor();
    await page.getByText('No subscription: the tenant is on the free plan.').waitFor();
    await page.getByText('No invoices yet.').waitFor();
    await page.getByRole('status').filter({ hasText: '100 credits on the free plan cost $100.00 ($1.00 each).' }).waitFor();
    await page.getByLabel('Credits').fill('250');
    await page.getByRole('button', { name: 'Calculate' }).click();
    await page.getByRole('status').filter({ hasText: '250 credits on the free plan cost $250.00' }).waitFor();
    await page.getByLabel('Credits').fill('2000000000');
    await page.getByRole('button', { name: 'Calculate' }).click();
    await page.getByRole('alert').filter({ hasText: 'whole number of credits' }).waitFor();
    await d.checkAccessibility('the billing page');
    await d.shot('billing-free');
  });

  it('subscribes to a paid plan from the page: the subscription, its invoice and the new tier\'s price', async () => {
    const { page } = d;
    await d.open('billing', 'Billing and plan');
    await page.getByLabel('Paid plan').selectOption('pro');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Subscription' }) });
    await card.getByText('active').waitFor();
    assert.equal(stripe.subscriptions.size, 1);
    // The plan changed in the kernel: the page reads it again, and so does the calculator.
    await page.reload();
    await page.locator('.facts').getByText('pro', { exact: true }).first().waitFor();
    await page.getByRole('table', { name: 'Plan limits and use' }).getByRole('row', { name: /Agents 1 250/ }).waitFor();
    await page.getByRole('table', { name: 'Invoices' }).getByRole('link', { name: 'ROOST-1' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'on the pro plan cost $90.00 ($0.90 each)' }).waitFor();
    await d.checkAccessibility('the billing page with a subscription');
    await d.shot('billing-pro');
  });

  it('shows a payment past due, then read-only once the grace period is over, on every page', async () => {
    const sub = (await d.server.api('GET', `/api/billing/subscription/${acme.id}`, { key: acme.key })).body;
    const failedAt = Math.floor(Date.now() / 1000) - GRACE_SECONDS - 60;
    const res = await deliver(d.server, stripe, stripe.event('invoice.payment_failed', { id: 'in_dash', object: 'invoice', customer: sub.customerId }, failedAt));
    assert.equal(res.body.outcome, 'applied', res.text);
    const { page } = d;
    // The app reads the tenant's state when it starts: a new visit sees the change.
    await d.open('billing', 'Billing and plan');
    await page.reload();
    await page.getByRole('alert').filter({ hasText: 'Read-only: the payment is overdue' }).waitFor();
    await page.locator('section.card', { has: page.getByRole('heading', { name: 'Subscription' }) }).getByText('past due').waitFor();
    await d.open('agents', 'Agents');
    await page.getByRole('alert').filter({ hasText: 'Read-only' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Refused');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('alert').filter({ hasText: 'payment is overdue' }).nth(1).waitFor();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await d.open('billing', 'Billing and plan');
    await page.getByRole('alert').filter({ hasText: 'Read-only' }).waitFor();
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1), 'nothing wider than the phone');
    await d.checkAccessibility('the read-only billing page, dark, on a phone');
    await d.shot('billing-read-only-phone-dark');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
  });
});

describe('the billing page on a server without billing configured', () => {
  let server: TestServer;
  let d: Dashboard;
  before(async () => {
    d = await startDashboard({ browser });
    server = d.server;
  });
  after(() => d.close());

  it('shows the enterprise plan with nothing to subscribe to, and asks for no subscription it never had', async () => {
    const { page } = d;
    const asked: string[] = [];
    const listen = (req: { url(): string }) => void (req.url().includes('/api/billing/subscription') && asked.push(req.url()));
    page.on('request', listen);
    await d.open('billing', 'Billing and plan');
    await page.getByText('No subscription: the tenant is on the enterprise plan, the highest there is.').waitFor();
    await page.getByRole('table', { name: 'Plan limits and use' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Subscribe' }).count(), 0);
    assert.equal(await page.getByLabel('Paid plan').count(), 0);
    page.off('request', listen);
    assert.deepEqual(asked, [], 'the page read a subscription the tenant never had (a 404)');
    assert.equal((await server.api('GET', '/api/tenants/me')).body.plan, 'enterprise');
    assert.deepEqual(await seriousViolations(page), [], 'accessibility of the unconfigured billing page');
    await d.shot('billing-not-configured');
  });
});
