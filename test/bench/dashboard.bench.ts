// The dashboard's weight and speed: the built page, script and style sheet, gzipped (what a browser
// downloads on its first visit), and the time from navigation to a rendered page in headless Chromium
// (the sessions page with its list loaded): cold, when the dashboard and the extensions it reads are
// not running yet, and warm (the median of fresh browser contexts, so nothing comes from a cache).
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../dashboard/browser.js';
import { reporter } from './lib/report.js';
import { startCliServer } from './lib/serve-cli.js';
import { median } from './lib/stats.js';

const report = reporter('dashboard');
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WARM_LOADS = 7;

bundleSize();
await firstLoad();

function bundleSize(): void {
  const dir = join(root, 'dist', 'dashboard');
  const files = readdirSync(dir).filter((f) => /\.(js|css|html)$/.test(f));
  const raw = files.reduce((sum, f) => sum + readFileSync(join(dir, f)).length, 0);
  const gzip = files.reduce((sum, f) => sum + gzipSync(readFileSync(join(dir, f)), { level: 9 }).length, 0);
  report('dashboard bundle (page, script, style sheet), gzipped', gzip / 1024 / 1024, 'MB', '<= 0.1 MB (100 KiB)', { gzipKiB: gzip / 1024, rawKiB: raw / 1024, files });
}

async function firstLoad(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'roost-bench-dashboard-'));
  const server = await startCliServer(dataDir);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const load = async (): Promise<number> => {
      const context = await browser!.newContext({ baseURL: server.url });
      try {
        const page = await context.newPage();
        const started = performance.now();
        await page.goto('/ui/#/sessions');
        // Rendered: the heading, and the sessions list answered (empty on a fresh server).
        await page.getByText('No sessions yet.').waitFor({ timeout: 60_000 });
        return performance.now() - started;
      } finally {
        await context.close();
      }
    };
    const cold = await load();
    const warm: number[] = [];
    for (let i = 0; i < WARM_LOADS; i++) warm.push(await load());
    report('dashboard first load to a rendered page, cold (dashboard and the extensions it reads not running yet)', cold, 'ms', '<= 1500 ms');
    report('dashboard first load to a rendered page, warm server, fresh browser context, median', median(warm), 'ms', '<= 500 ms', { runs: warm.map(Math.round) });
  } finally {
    await browser?.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
