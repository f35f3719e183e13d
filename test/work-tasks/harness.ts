// A real server wired to the fake Anthropic API and the fake code host, with git repositories in temp
// folders: a bare "origin" (…/acme/widgets.git) and a clone that is the project's folder.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeAnthropic, type AnthropicReply, type FakeAnthropic } from '../fakes/anthropic.js';
import { startCodeHost, type FakeCodeHost } from '../fakes/vcshost.js';
import { FIXTURES } from '../agents/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

export const TOKEN = 'ghp_fake_codehost_token';
export const MODEL = 'claude-sonnet-5-5';

export interface Harness {
  server: TestServer;
  anthropic: FakeAnthropic;
  codehost: FakeCodeHost;
  env: Record<string, string>;
  dataDir: string;
  /** A fresh repository (bare origin + clone) and its project; `files` are committed on main. */
  repo(files?: Record<string, string>, slug?: string): Promise<{ dir: string; origin: string; projectId: string }>;
  agent(body?: Record<string, unknown>): Promise<any>;
  task(id: string): Promise<any>;
  /** Polls the task until `done` holds. */
  until(id: string, done: (t: any) => boolean, what: string, timeoutMs?: number): Promise<any>;
  /** kill -9 the server, let `meanwhile` act on the data while nothing runs, then start a new one on the same data dir. */
  crashAndRelaunch(meanwhile?: () => Promise<void>): Promise<void>;
  /** Stops the server (SIGTERM), lets `meanwhile` look at the data while nothing runs, then starts a new one on the same data dir. */
  restart(meanwhile?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });

/** A validation that passes once answer.txt holds 42. */
export const MAKEFILE = 'lint:\n\ttrue\ntest:\n\ttest "$$(cat answer.txt)" = "42"\n';

/** Replies for a work task's agent: write `content` to answer.txt, then say done. */
export function writes(content: string, summary = 'Wrote answer.txt.'): Array<AnthropicReply | string> {
  return [{ toolUses: [{ name: 'write_file', input: { path: 'answer.txt', content } }] }, summary];
}

let names = 0;

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const anthropic = await startFakeAnthropic({ apiKey: 'test' });
  const codehost = await startCodeHost({ token: TOKEN, repos: { 'acme/widgets': { defaultBranch: 'main' }, 'acme/secret': { defaultBranch: 'main' } }, scopes: ['repo', 'read:org'] });
  const root = await mkdtemp(join(tmpdir(), 'roost-wt-'));
  const dataDir = await mkdtemp(join(tmpdir(), 'roost-data-'));
  const fullEnv = {
    ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: anthropic.url, ROOST_EXTENSION_DIRS: FIXTURES,
    ROOST_EXT_CODEHOST_BASE_URL: codehost.url, ROOST_EXT_CODEHOST_TOKEN: TOKEN,
    ROOST_EXT_WORK_TASKS_LOCK_TTL_SECONDS: '3', ROOST_EXT_WORK_TASKS_SCAN_INTERVAL_MS: '200', ...env,
  };
  let server = await startTestServer({ env: fullEnv, dataDir });
  const h: Harness = {
    get server() {
      return server;
    },
    anthropic,
    codehost,
    env: fullEnv,
    dataDir,
    async repo(files = { 'Makefile': MAKEFILE, 'README.md': '# widgets\n' }, slug = 'acme/widgets') {
      const n = ++names;
      const origin = join(root, `remote-${n}`, `${slug}.git`);
      await mkdir(origin, { recursive: true });
      git(origin, 'init', '-q', '--bare', '-b', 'main');
      const dir = join(root, `clone-${n}`);
      await mkdir(dir);
      git(dir, 'init', '-q', '-b', 'main');
      for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', 'initial');
      git(dir, 'remote', 'add', 'origin', origin);
      git(dir, 'push', '-q', 'origin', 'main');
      const res = await server.api('POST', '/api/projects', { body: { name: `widgets-${n}`, workingDir: dir } });
      if (res.status !== 201) throw new Error(`project not created: ${res.status} ${res.text}`);
      return { dir, origin, projectId: res.body.id };
    },
    async agent(body = {}) {
      const res = await server.api('POST', '/api/agents', { body: { name: `builder-${++names}`, model: MODEL, permissionMode: 'full-auto', ...body } });
      if (res.status !== 201) throw new Error(`agent not created: ${res.status} ${res.text}`);
      return res.body;
    },
    async task(id) {
      return (await server.api('GET', `/api/work-tasks/${id}`)).body;
    },
    until(id, done, what, timeoutMs = 45_000) {
      return waitFor(what, async () => {
        const t = await h.task(id);
        return done(t) ? t : undefined;
      }, timeoutMs);
    },
    async crashAndRelaunch(meanwhile) {
      server.process.kill('SIGKILL');
      await server.process.catch(() => undefined);
      await meanwhile?.();
      server = await startTestServer({ env: fullEnv, dataDir });
    },
    async restart(meanwhile) {
      await server.stop();
      await meanwhile?.();
      server = await startTestServer({ env: fullEnv, dataDir });
    },
    async close() {
      await server.stop();
      await Promise.all([anthropic.close(), codehost.close()]);
      await rm(root, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}

/** The content of `path` on `branch` of a bare repository. */
export function showFile(origin: string, branch: string, path: string): string {
  return execFileSync('git', ['--git-dir', origin, 'show', `${branch}:${path}`], { encoding: 'utf8' });
}
