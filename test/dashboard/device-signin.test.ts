// Signing in through the device flow (RFC 8628): one browser signs in with "Sign in with another device"
// while another, signed in as the owner, approves its code on "Approve a device" with a lower role; a
// denied code shows the denial. And the polling itself, without a browser: the interval, slow_down,
// a denial, an expired code.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { pollForKey, type DeviceCode, type DeviceIo } from '../../extensions/dashboard/web/device-flow.js';
import { startDashboard, seriousViolations, UI_TIMEOUT, type Dashboard } from './browser.js';

const KEY = `rk_${randomBytes(32).toString('base64url')}`;

describe('signing in to the dashboard with another device', () => {
  let d: Dashboard;
  let owner: Page;
  before(async () => {
    d = await startDashboard({ env: { ROOST_LOCAL_AUTH: 'required', ROOST_API_KEY: KEY, ROOST_DEVICE_POLL_INTERVAL_SECONDS: '1' } });
    // The approver: a second browser context (its own sessionStorage), signed in with the owner's key.
    const context = await d.browser.newContext({ baseURL: d.server.url, viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(UI_TIMEOUT);
    owner = await context.newPage();
    await owner.goto('/ui/');
    await owner.getByLabel('API key').fill(KEY);
    await owner.getByRole('button', { name: 'Sign in', exact: true }).click();
    await owner.getByText('default · owner').waitFor();
  });
  after(() => d.close());

  /** Starts the flow on the signing-in page and returns the user code it shows. */
  async function startFlow(): Promise<string> {
    const { page } = d;
    await page.goto('/ui/');
    await page.getByRole('button', { name: 'Sign in with another device' }).click();
    const code = (await page.locator('.user-code output').textContent())!.trim();
    assert.match(code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    await page.getByRole('status').filter({ hasText: 'Waiting for approval' }).waitFor();
    return code;
  }

  it('signs in once the owner approves the code in the dashboard, with the role the owner chose', async () => {
    const { page } = d;
    const code = await startFlow();
    const complete = await page.getByRole('link', { name: 'Open with the code filled in' }).getAttribute('href');
    assert.match(complete!, new RegExp(`/ui/#/device/${code}$`));
    assert.equal(await page.getByRole('link', { name: 'Approve in the dashboard' }).getAttribute('href'), `${d.server.url}/ui/#/device/${code}`);
    assert.deepEqual(await seriousViolations(page), [], 'accessibility of the waiting sign-in');
    await d.shot('device-signin-waiting');

    await owner.goto(`/ui/#/device/${code}`);
    await owner.getByRole('heading', { level: 1, name: 'Approve a device' }).waitFor();
    assert.equal(await owner.getByLabel('User code').inputValue(), code);
    assert.deepEqual(await owner.getByLabel('Role for the device').locator('option').allTextContents(), ['viewer', 'operator', 'owner']);
    await owner.getByLabel('Role for the device').selectOption('operator');
    assert.deepEqual(await seriousViolations(owner), [], 'accessibility of the approval page');
    await owner.getByRole('button', { name: 'Approve' }).click();
    await owner.getByRole('status').filter({ hasText: 'Approved: roost-dashboard is signed in to default as operator' }).waitFor();
    await owner.screenshot({ path: `${process.cwd()}/test-artifacts/dashboard/device-approved.png`, fullPage: true });

    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    await page.getByText('default · operator').waitFor();
    const kept = await page.evaluate(() => sessionStorage.getItem('roost.apiKey'));
    assert.match(kept!, /^rk_/);
    assert.equal(await page.evaluate(() => localStorage.getItem('roost.apiKey')), null);
    const me = await d.server.api('GET', '/api/tenants/me', { key: kept! });
    assert.equal(me.body.role, 'operator');
    await d.checkAccessibility('the app signed in by device');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Roost' }).waitFor();
  });

  it('shows the denial when the owner denies the code, and refuses an unknown code', async () => {
    const { page } = d;
    const code = await startFlow();
    await owner.goto('/ui/#/device');
    await owner.getByRole('heading', { level: 1, name: 'Approve a device' }).waitFor();
    await owner.getByLabel('User code').fill('BCDF-GHJK');
    await owner.getByRole('button', { name: 'Approve' }).click();
    await owner.getByRole('alert').waitFor();
    // Typed in lower case without the dash: the server matches it all the same.
    await owner.getByLabel('User code').fill(code.toLowerCase().replace('-', ''));
    await owner.getByRole('button', { name: 'Deny' }).click();
    await owner.getByRole('status').filter({ hasText: 'Denied: roost-dashboard was refused' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'denied on the other device' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('roost.apiKey')), null);
    await d.checkAccessibility('the denied sign-in');
    await d.shot('device-signin-denied');
  });

  it('offers a viewer no approval and lists no role above the approver\'s own', async () => {
    const member = await d.server.api('POST', '/api/tenants/me/members', { key: KEY, body: { role: 'operator', label: 'op' } });
    assert.equal(member.status, 201, member.text);
    const viewer = await d.server.api('POST', '/api/tenants/me/members', { key: KEY, body: { role: 'viewer', label: 'ro' } });
    const { page } = d;
    await page.goto('/ui/');
    await page.getByLabel('API key').fill(member.body.apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: 'Approve a device' }).click();
    assert.deepEqual(await page.getByLabel('Role for the device').locator('option').allTextContents(), ['viewer', 'operator']);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').fill(viewer.body.apiKey);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: 'Approve a device' }).click();
    await page.getByText('A viewer cannot approve devices').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0);
    await page.getByRole('button', { name: 'Sign out' }).click();
  });
});

describe('the device flow polling', () => {
  const code: DeviceCode = { device_code: 'd', user_code: 'BCDF-GHJK', verification_uri: 'http://x/ui/#/device', expires_in: 60, interval: 2 };
  /** A fake clock and token endpoint answering `answers` in turn; records each wait. */
  function io(answers: Array<{ status: number; body: unknown }>) {
    let now = 0;
    const waits: number[] = [];
    const bodies: string[] = [];
    const fake: DeviceIo = {
      fetch: async (_input, init) => {
        bodies.push(String(init?.body));
        const next = answers.shift()!;
        return new Response(JSON.stringify(next.body), { status: next.status });
      },
      wait: async (ms) => {
        waits.push(ms);
        now += ms;
      },
      now: () => now,
    };
    return { fake, waits, bodies };
  }
  const pending = { status: 400, body: { error: 'authorization_pending' } };

  it('polls at the interval, 5 s slower after each slow_down, until the key', async () => {
    const { fake, waits, bodies } = io([pending, { status: 400, body: { error: 'slow_down' } }, pending, { status: 200, body: { access_token: 'rk_x', token_type: 'Bearer' } }]);
    assert.deepEqual(await pollForKey(fake, code), { kind: 'key', key: 'rk_x' });
    assert.deepEqual(waits, [2000, 2000, 7000, 7000]);
    assert.match(bodies[0]!, /grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=d&client_id=roost-dashboard/);
  });

  it('ends on access_denied, expired_token, the code\'s own end, and an unexpected error', async () => {
    assert.deepEqual(await pollForKey(io([pending, { status: 400, body: { error: 'access_denied' } }]).fake, code), { kind: 'denied' });
    assert.deepEqual(await pollForKey(io([{ status: 400, body: { error: 'expired_token' } }]).fake, code), { kind: 'expired' });
    const forever = io(Array.from({ length: 40 }, () => pending));
    assert.deepEqual(await pollForKey(forever.fake, code), { kind: 'expired' });
    assert.equal(forever.waits.length, 31, 'it stops polling once expires_in has passed');
    assert.deepEqual(await pollForKey(io([{ status: 400, body: { error: 'invalid_grant', error_description: 'unknown device code' } }]).fake, code), { kind: 'failed', message: 'unknown device code' });
  });
});
