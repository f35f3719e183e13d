// One real server (with the fake Anthropic API behind it) and one headless Chromium per test file,
// driven by playwright-core; screenshots go to test-artifacts/dashboard/, and every page can be held to
// axe-core (no serious or critical violations).
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startFakeAnthropic, type AnthropicScript, type FakeAnthropic } from '../fakes/anthropic.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'dashboard');
export const CHROMIUM = process.env.ROOST_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/** Generous: the machine is shared, and a page's first load starts a lazy extension or two. */
export const UI_TIMEOUT = 30_000;

export interface Dashboard {
  server: TestServer;
  anthropic: FakeAnthropic;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Goes to a hash route (`agents`, `sessions/<id>`) and waits for its heading. */
  open(route: string, heading?: string | RegExp): Promise<void>;
  /** Saves a full-page screenshot as test-artifacts/dashboard/<name>.png. */
  shot(name: string): Promise<void>;
  /** Runs axe-core on the page and fails on any serious or critical violation. */
  checkAccessibility(what: string): Promise<void>;
  close(): Promise<void>;
}

export interface DashboardOptions {
  script?: AnthropicScript;
  env?: Record<string, string>;
  context?: Parameters<Browser['newContext']>[0];
  /** A browser the file already runs (a file with several dashboards launches one): used, and left open by close(). */
  browser?: Browser;
}

/** Headless Chromium as the dashboard tests drive it. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

export async function startDashboard(options: DashboardOptions = {}): Promise<Dashboard> {
  await mkdir(ARTIFACTS, { recursive: true });
  const anthropic = await startFakeAnthropic({ apiKey: 'test', script: options.script ?? ['Hello from the fake.'] });
  // The server and the browser start side by side: each takes seconds, mostly waiting on the other core.
  const [started, launched] = await Promise.allSettled([
    startTestServer({ env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url, ...options.env } }),
    options.browser ?? launchBrowser(),
  ]);
  if (started.status === 'rejected' || launched.status === 'rejected') {
    if (started.status === 'fulfilled') await started.value.cleanup();
    if (launched.status === 'fulfilled' && !options.browser) await launched.value.close();
    await anthropic.close();
    throw started.status === 'rejected' ? started.reason : (launched as PromiseRejectedResult).reason;
  }
  const server = started.value;
  const browser = launched.value;
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 900 }, ...options.context });
  context.setDefaultTimeout(UI_TIMEOUT);
  const page = await context.newPage();
  const problems: string[] = [];
  // A script error or a CSP refusal on the page is a failure of the page.
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) problems.push(`console: ${message.text()}`);
  });

  const d: Dashboard = {
    server,
    anthropic,
    browser,
    context,
    page,
    async open(route, heading) {
      await page.goto(`/ui/#/${route}`);
      if (heading) await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    },
    async shot(name) {
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    async checkAccessibility(what) {
      assert.deepEqual(await seriousViolations(page), [], `accessibility of ${what}`);
      assert.deepEqual(problems, [], `the page reported problems on ${what}`);
    },
    async close() {
      await (options.browser ? context.close() : browser.close()).catch(() => undefined);
      await server.cleanup();
      await anthropic.close();
    },
  };
  return d;
}

/** axe-core's serious and critical violations on the page, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (no inline script) does not govern.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const result = await page.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
}
