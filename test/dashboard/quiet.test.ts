// A fresh server phones nowhere: started in a network namespace where every attempt to reach another
// machine shows as a packet (test/helpers/quiet-namespace.ts), with its dashboard opened page by page in
// Chromium and its main flows used — an agent and a project made, a session started from the page and
// answered, a chat — it sends nothing off the machine. Chainchat is read every 100 ms here, so an account
// made by a page view would reach for its public node within the test.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic.js';
import { createQuietNamespace, quietNamespaceUnavailable, type QuietNamespace } from '../helpers/quiet-namespace.js';
import { startTestServer, waitReady, type TestServer } from '../helpers/server.js';
import { CHROMIUM, CHROMIUM_ARGS, UI_TIMEOUT } from './browser.js';

const skip = quietNamespaceUnavailable() || (process.env.ROOST_TEST_POSTGRES === '1' && 'the server in its namespace reaches no PostgreSQL outside it; the question is the same on both stores');

describe('a fresh server makes no outbound connection', { skip }, () => {
  let ns: QuietNamespace;
  let anthropic: FakeAnthropic;
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let folder: string;

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'roost-quiet-project-'));
    ns = await createQuietNamespace();
    anthropic = await startFakeAnthropic({ apiKey: 'test', script: ['Hello from the quiet fake.', 'And again.'] });
    await ns.reach(Number(new URL(anthropic.url).port));
    server = await startTestServer({
      launcher: ns.exec,
      waitReady: false,
      env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url, ROOST_EXT_CHAINCHAT_POLL_MS: '100' },
    });
    await ns.expose(server.port);
    await waitReady(server.url);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const context = await browser.newContext({ baseURL: server.url });
    context.setDefaultTimeout(UI_TIMEOUT);
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    await server?.cleanup();
    await anthropic?.close();
    await ns?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('sends nothing off the machine while its pages are opened and its main flows used', async () => {
    const agent = await server.api('POST', '/api/agents', { body: { name: 'Quiet' } });
    assert.equal(agent.status, 201, agent.text);
    const project = await server.api('POST', '/api/projects', { body: { name: 'quiet', workingDir: folder } });
    assert.equal(project.status, 201, project.text);

    await page.goto('/ui/#/sessions');
    await page.getByLabel('Agent').selectOption({ label: 'Quiet' });
    await page.getByLabel('First message').fill('Say hello');
    await page.getByRole('button', { name: 'Start session' }).click();
    await page.getByRole('log', { name: 'Session stream' }).getByText('Hello from the quiet fake.').waitFor();

    await page.goto(`/ui/#/chat/${agent.body.id}`);
    await page.getByLabel('Your message').fill('Once more');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('log', { name: 'Session stream' }).getByText('And again.').waitFor();

    // Every page the navigation offers, as a person would click through them.
    const links = await page.locator('nav a[href^="#/"]').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')!));
    assert.ok(links.length >= 10, `the navigation offers ${links.length} pages`);
    for (const href of links) {
      await page.goto(`/ui/${href}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
    }
    // The pages that poll have polled at least once more, and chainchat's reader has had many rounds.
    await page.goto('/ui/#/chainchat');
    await page.getByRole('status').filter({ hasText: 'Not set up.' }).waitFor();
    assert.equal((await server.api('GET', '/api/chainchat/status')).body.enabled, false);

    assert.equal(await ns.sent(), 0, await ns.attempts());
  });
});
