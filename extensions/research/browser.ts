// Headless Chromium through playwright-core with the system's Chromium (ROOST_CHROMIUM_PATH, default
// /usr/bin/chromium). One browser is shared by the calls of this process (started on first use, closed
// after a minute unused); each call gets a fresh context, so no cookie or storage crosses calls. Only
// http(s) URLs are loaded, each call is capped in time, and what it returns is capped in size.
// Every connection of a call goes through that call's guarded proxy (proxy.ts), within the caller's
// reach (sdk/reach.ts); Chromium itself resolves no name and sends no UDP.
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { RoostError, validationError } from '../../protocol/errors.js';
import { blockedAddress, refusedAddress, type Reach } from '../../sdk/outbound.js';
import { portOf } from '../../sdk/reach.js';
import { GuardedProxy } from './proxy.js';

/** playwright-core is loaded on first use, from node_modules (it is not bundled: it ships assets it reads at run time). */
const loadModule = createRequire(import.meta.url);

const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage',
  // Names are resolved by the proxy alone (it connects where it checked), and WebRTC sends no UDP past it.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];
const LAUNCH_TIMEOUT_MS = 30_000;
const NAVIGATION_TIMEOUT_MS = 20_000;
/** The whole call (navigation, reading, screenshot). */
const CALL_TIMEOUT_MS = 40_000;
const IDLE_MS = 60_000;
/**
 * Debian's /usr/bin/chromium is a shell script that sources /etc/chromium.d/*, which the extension's
 * sandbox does not show (and it only adds desktop flags): the browser it wraps is started instead.
 */
const DEBIAN_WRAPPER = '/usr/bin/chromium';
const DEBIAN_BINARY = '/usr/lib/chromium/chromium';
const VIEWPORT = { width: 1280, height: 800 };

export interface PageInfo {
  url: string;
  status: number | null;
  title: string;
}

export function checkUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw validationError(`"${url.slice(0, 200)}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw validationError(`only http and https URLs are loaded, not ${parsed.protocol}`);
  return parsed;
}

export class Chromium {
  private browser: Promise<Browser> | undefined;
  private users = 0;
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly path: () => Promise<string>) {}

  /**
   * Loads the page in a fresh context and hands it to `read`, within the call's time cap. `reachOf`
   * says where a connection to a port may go (the caller's reach).
   */
  async withPage<T>(url: string, reachOf: (port: number) => Reach, read: (page: Page, info: PageInfo) => Promise<T>): Promise<T> {
    const target = checkUrl(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // Refused at once when the URL names the address; a name is checked by the proxy as it resolves.
    const reach = reachOf(portOf(target));
    if (blockedAddress(host, reach)) throw loadFailure(target.href, undefined, refusedAddress(host, reach));
    const proxy = await GuardedProxy.start(reachOf);
    this.users++;
    clearTimeout(this.idle);
    try {
      const context = await (await this.launch()).newContext({ viewport: VIEWPORT, acceptDownloads: false, serviceWorkers: 'block', proxy: { server: proxy.url } });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        void context.close();
      }, CALL_TIMEOUT_MS);
      try {
        const page = await context.newPage();
        const response = await page.goto(target.href, { timeout: NAVIGATION_TIMEOUT_MS, waitUntil: 'load' });
        // A redirect may leave http(s): what it reached is not read.
        checkUrl(page.url());
        return await read(page, { url: page.url(), status: response?.status() ?? null, title: await page.title() });
      } catch (err) {
        if (timedOut) throw new RoostError('TIMEOUT', `reading ${target.href} took longer than ${CALL_TIMEOUT_MS / 1000} s`);
        throw loadFailure(target.href, err, proxy.failureFor(host));
      } finally {
        clearTimeout(timer);
        await context.close().catch(() => undefined);
      }
    } finally {
      await proxy.close();
      if (--this.users === 0) this.idle = setTimeout(() => void this.close(), IDLE_MS).unref();
    }
  }

  async close(): Promise<void> {
    const browser = this.browser;
    this.browser = undefined;
    await (await browser?.catch(() => undefined))?.close().catch(() => undefined);
  }

  private launch(): Promise<Browser> {
    if (!this.browser) {
      const starting = this.start();
      this.browser = starting;
      starting.then((b) => b.on('disconnected', () => this.browser === starting && (this.browser = undefined)), () => (this.browser = undefined));
    }
    return this.browser;
  }

  private async start(): Promise<Browser> {
    const executablePath = await this.path();
    if (!existsSync(executablePath)) {
      throw new RoostError('EXTENSION_UNAVAILABLE', `the browser needs Chromium, and there is none at ${executablePath}: install it (Debian: apt-get install chromium) or set ROOST_CHROMIUM_PATH to a Chromium or Chrome executable`, { status: 503 });
    }
    const { chromium } = loadModule('playwright-core') as typeof import('playwright-core');
    try {
      const binary = realpathSync(executablePath) === DEBIAN_WRAPPER && existsSync(DEBIAN_BINARY) ? DEBIAN_BINARY : executablePath;
      return await chromium.launch({ executablePath: binary, headless: true, args: FLAGS, timeout: LAUNCH_TIMEOUT_MS });
    } catch (err) {
      throw new RoostError('EXTENSION_UNAVAILABLE', `Chromium at ${executablePath} did not start: ${firstLine(err)}`, { status: 503 });
    }
  }
}

/** Why a load failed: what the proxy refused or could not reach, else what the browser said. */
function loadFailure(url: string, err: unknown, proxied: RoostError | undefined): RoostError {
  if (err instanceof RoostError) return err;
  if (proxied?.code === 'FORBIDDEN') return new RoostError('FORBIDDEN', `loading ${url} was refused: ${proxied.message}`);
  return new RoostError('UPSTREAM_ERROR', `loading ${url} failed: ${proxied?.message ?? firstLine(err)}`);
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}
