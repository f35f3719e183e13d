// `roost login` end to end: the real binary (dist/cli/bin.js) runs the device flow against a real server,
// a person approves in a real browser on the verification page, the dashboard's "Approve a device"
// (headless Chromium, under the page's Content-Security-Policy), and the key lands in $ROOST_HOME/config.toml with mode 0600, beside the
// tables already there. A denial, a bad --server and an unreachable one fail with clear messages.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa, type ResultPromise } from 'execa';
import { chromium, type Browser } from 'playwright-core';
import { parse } from 'smol-toml';
import { roostBin } from '../helpers/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

interface LoginRun {
  child: ResultPromise;
  /** Resolves with the link and the user code once `roost login` has printed them. */
  prompt: Promise<{ url: string; code: string }>;
}

function login(home: string, args: string[]): LoginRun {
  const child = execa(process.execPath, [roostBin, 'login', '--json', ...args], { env: { ROOST_HOME: home, ROOST_NO_COLOR: '1' }, reject: false, stdin: 'ignore', timeout: 60_000 });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const prompt = waitFor('the sign-in prompt', async () => {
    const url = /open (\S+)/.exec(stderr)?.[1];
    const code = /the code ([A-Z]{4}-[A-Z]{4})/.exec(stderr)?.[1];
    return url && code ? { url, code } : undefined;
  }, 30_000);
  return { child, prompt };
}

describe('roost login', { timeout: 90_000 }, () => {
  const instanceKey = `rk_test_${randomBytes(16).toString('hex')}`;
  let server: TestServer;
  let browser: Browser;
  let home: string;
  let owner: string;
  let tenantId: string;

  before(async () => {
    [server, browser] = await Promise.all([
      startTestServer({ env: { ROOST_LOCAL_AUTH: 'required', ROOST_API_KEY: instanceKey, ROOST_DEVICE_POLL_INTERVAL_SECONDS: '1' } }),
      chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_FLAGS }),
    ]);
    home = await mkdtemp(join(tmpdir(), 'roost-login-'));
    const registered = await server.api('POST', '/api/tenants/register', { body: { org: 'Acme' } });
    owner = registered.body.apiKey;
    tenantId = registered.body.tenant.id;
  });
  after(async () => {
    await browser.close();
    await server.cleanup();
    await rm(home, { recursive: true, force: true });
  });

  it('signs in after approval in the browser and keeps the key in config.toml, mode 0600', async () => {
    await writeFile(join(home, 'config.toml'), '[ai]\nprovider = "ollama"\n', { mode: 0o644 });
    const run = login(home, ['--server', server.url]);
    const { url, code } = await run.prompt;
    assert.equal(url, `${server.url}/ui/#/device/${code}`);

    const page = await browser.newPage();
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused/i.test(message.text())) refusals.push(message.text());
    });
    await page.goto(url);
    await page.getByLabel('API key').fill(owner);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Approve a device' }).waitFor();
    assert.equal(await page.getByLabel('User code').inputValue(), code, 'the link fills in the code');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('status').filter({ hasText: 'Approved' }).waitFor();
    await page.close();
    assert.deepEqual(refusals, [], 'the page runs under its own CSP');

    const result = await run.child;
    assert.equal(result.exitCode, 0, String(result.stderr));
    const doc = JSON.parse(String(result.stdout));
    assert.deepEqual([doc.ok, doc.server, doc.tenant_id, doc.role], [true, server.url, tenantId, 'owner']);
    const path = join(home, 'config.toml');
    assert.equal(doc.config, path);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const config = parse(await readFile(path, 'utf8')) as any;
    assert.deepEqual({ ...config.ai }, { provider: 'ollama' }, 'the other tables are kept');
    assert.equal(config.server.url, server.url);
    const me = await server.api('GET', '/api/tenants/me', { key: config.server.api_key });
    assert.deepEqual([me.status, me.body.id, me.body.role], [200, tenantId, 'owner']);
  });

  it('fails clearly when the person denies, keeping the earlier login', async () => {
    const before_ = await readFile(join(home, 'config.toml'), 'utf8');
    // No --server: the server of the last login.
    const run = login(home, []);
    const { code } = await run.prompt;
    const denied = await server.api('POST', '/api/auth/device/authorize', { key: owner, body: { user_code: code, action: 'deny' } });
    assert.equal(denied.status, 200, denied.text);
    const result = await run.child;
    assert.equal(result.exitCode, 1);
    const doc = JSON.parse(String(result.stdout));
    assert.equal(doc.ok, false);
    assert.match(doc.error.message, /denied/);
    assert.equal(await readFile(join(home, 'config.toml'), 'utf8'), before_);
  });

  it('refuses a --server that is not an http(s) URL, and names a server it cannot reach', async () => {
    const bad = await execa(process.execPath, [roostBin, 'login', '--server', 'ftp://example.com'], { env: { ROOST_HOME: home, ROOST_NO_COLOR: '1' }, reject: false, stdin: 'ignore' });
    assert.equal(bad.exitCode, 2);
    assert.match(String(bad.stderr), /--server must be an http/);
    const unreachable = await execa(process.execPath, [roostBin, 'login', '--server', 'http://127.0.0.1:9'], { env: { ROOST_HOME: home, ROOST_NO_COLOR: '1' }, reject: false, stdin: 'ignore' });
    assert.equal(unreachable.exitCode, 1);
    assert.match(String(unreachable.stderr), /cannot reach http:\/\/127\.0\.0\.1:9/);
  });
});
