// The marketplace in the dashboard, with two tenants on one server: the owner creates and edits a paid
// listing from the form; another tenant finds it with the search filters, uses it paying with its own
// agent (the price held), settles one use as a success and one as a failure, and reviews it; the
// federated tab adds a second server (its key pinned on first use), syncs, and lists what it pulled.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { registerTenant, type Tenant } from '../billing/harness.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { seriousViolations, startDashboard, UI_TIMEOUT, type Dashboard } from './browser.js';

describe('the marketplace in the dashboard', () => {
  let d: Dashboard;
  let peer: TestServer;
  let buyer: Page;
  let globex: Tenant;
  let listingId = '';
  before(async () => {
    // The federated server listens on loopback: the marketplace reaches it only when the owner opted in
    // (and never its own port).
    [d, peer] = await Promise.all([startDashboard({ env: { ROOST_EXT_MARKETPLACE_ALLOW_LOOPBACK: '1' } }), startTestServer()]);
    const offered = await peer.api('POST', '/api/marketplace/listings', { body: { kind: 'skill_bundle', name: 'Terraform Planner', description: 'Plans infrastructure changes.' } });
    assert.equal(offered.status, 201, offered.text);
    const seller = await d.server.api('POST', '/api/agents', { body: { name: 'Seller' } });
    assert.equal(seller.status, 201, seller.text);
    globex = await registerTenant(d.server, 'Globex');
    const agent = await d.server.api('POST', '/api/agents', { key: globex.key, body: { name: 'Buyer' } });
    assert.equal(agent.status, 201, agent.text);
    const context = await d.browser.newContext({ baseURL: d.server.url, viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(UI_TIMEOUT);
    buyer = await context.newPage();
    await buyer.goto('/ui/');
    await buyer.evaluate((key) => sessionStorage.setItem('roost.apiKey', key), globex.key);
    await buyer.reload();
    await buyer.getByText('Globex · owner').waitFor();
  });
  after(() => Promise.all([d.close(), peer.cleanup()]));

  it('creates a paid listing from the form and edits it', async () => {
    const { page } = d;
    await d.open('marketplace', 'Marketplace');
    await page.getByRole('link', { name: 'New listing' }).click();
    await page.getByRole('heading', { level: 1, name: 'New listing' }).waitFor();
    await page.getByLabel('Kind').selectOption('agent');
    await page.getByLabel('Name', { exact: true }).fill('Code Reviewer');
    await page.getByLabel('Tags').fill('review, typescript');
    await page.getByLabel('Seller agent').selectOption({ label: 'Seller' });
    await page.getByLabel('Price per use (credits)').fill('0.5');
    await page.getByLabel('Description').fill('Reads pull requests.');
    await d.checkAccessibility('the new listing form');
    await page.getByRole('button', { name: 'Create listing' }).click();
    await page.getByRole('heading', { level: 1, name: 'Listing Code Reviewer' }).waitFor();
    listingId = decodeURIComponent(new URL(page.url()).hash.split('/').pop()!);
    await page.getByText('0.5 credits a use').waitFor();
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit listing Code Reviewer' }).waitFor();
    await page.getByLabel('Description').fill('Reads pull requests and says what breaks.');
    await page.getByRole('button', { name: 'Save listing' }).click();
    await page.getByText('says what breaks').waitFor();
    // Its own listing: no review form, and it shows under My listings.
    assert.equal(await page.getByRole('button', { name: 'Post review' }).count(), 0);
    await d.open('marketplace/mine', 'Marketplace');
    await page.getByRole('table', { name: 'Listings' }).getByRole('link', { name: 'Code Reviewer' }).waitFor();
    const stored = await d.server.api('GET', `/api/marketplace/listings/${listingId}`);
    assert.equal(stored.body.priceMicroUnits, 500_000);
    assert.deepEqual(stored.body.tags, ['review', 'typescript']);
  });

  it('finds it with the filters from another tenant, and a filter that excludes it finds nothing', async () => {
    await buyer.goto('/ui/#/marketplace');
    await buyer.getByRole('heading', { level: 1, name: 'Marketplace' }).waitFor();
    await buyer.getByRole('searchbox', { name: 'Search' }).fill('reviewers');
    await buyer.getByLabel('Kind').selectOption('agent');
    await buyer.getByLabel('Tag').fill('TypeScript');
    await buyer.getByLabel('Highest price (credits)').fill('1');
    await buyer.getByRole('button', { name: 'Search', exact: true }).click();
    await buyer.getByRole('status').filter({ hasText: '1 found' }).waitFor();
    await buyer.getByRole('table', { name: 'Listings' }).getByRole('link', { name: 'Code Reviewer' }).waitFor();
    assert.deepEqual(await seriousViolations(buyer), [], 'accessibility of the search');
    await buyer.screenshot({ path: `${process.cwd()}/test-artifacts/dashboard/marketplace-search.png`, fullPage: true });
    await buyer.getByLabel('Highest price (credits)').fill('0.25');
    await buyer.getByRole('button', { name: 'Search', exact: true }).click();
    await buyer.getByText('No listing matches.').waitFor();
  });

  it('uses it paying with the buyer\'s agent, settles a success and a failure, and reviews it', async () => {
    await buyer.goto(`/ui/#/marketplace/listing/${listingId}`);
    await buyer.getByRole('heading', { level: 1, name: 'Listing Code Reviewer' }).waitFor();
    const use = buyer.getByRole('button', { name: 'Use for 0.5 credits' });
    assert.equal(await use.isDisabled(), true, 'a paid use needs a paying agent');
    await buyer.getByLabel('Paying agent').selectOption({ label: 'Buyer' });
    await use.click();
    const uses = buyer.getByRole('list', { name: 'Your uses of this listing' });
    await uses.getByText('held').waitFor();
    await buyer.getByRole('button', { name: /as a success$/ }).click();
    await uses.getByText('released').waitFor();
    await use.click();
    await uses.getByText('held').waitFor();
    await buyer.getByRole('button', { name: /as a failure$/ }).click();
    await uses.getByText('refunded').waitFor();
    await buyer.getByLabel('Rating').selectOption('4');
    await buyer.getByLabel('Comment').fill('Caught a real bug.');
    await buyer.getByRole('button', { name: 'Post review' }).click();
    await buyer.getByRole('list', { name: 'Reviews' }).getByText('Caught a real bug.').waitFor();
    await buyer.getByText('4.0 ★ from 1').waitFor();
    await buyer.getByRole('button', { name: 'Post review' }).click();
    await buyer.getByRole('alert').waitFor();
    assert.equal(await buyer.getByRole('link', { name: 'Edit' }).count(), 0, 'another tenant\'s listing offers no edit');
    assert.deepEqual(await seriousViolations(buyer), [], 'accessibility of a listing');
    await buyer.screenshot({ path: `${process.cwd()}/test-artifacts/dashboard/marketplace-listing.png`, fullPage: true });
    const listing = (await d.server.api('GET', `/api/marketplace/listings/${listingId}`)).body;
    assert.equal(listing.useCount, 2);
  });

  it('adds a federated server, syncs it and lists the listings it pulled', async () => {
    const { page } = d;
    await d.open('marketplace/federated', 'Marketplace');
    await page.getByText('No federated server yet.').waitFor();
    await page.getByLabel('Server address').fill(peer.url);
    await page.getByRole('button', { name: 'Add server' }).click();
    await page.getByRole('table', { name: 'Federated servers' }).getByText(peer.url).waitFor();
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByRole('table', { name: 'Federated listings' }).getByText('Terraform Planner').waitFor();
    await d.checkAccessibility('the federated tab');
    await d.shot('marketplace-federated');
    await page.getByRole('button', { name: `Remove ${peer.url}` }).click();
    await page.getByText('No federated server yet.').waitFor();
  });
});
