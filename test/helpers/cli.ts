// Runs the built roost binary the way a person or a script would, in temporary directories and git
// repositories that the test owns. Over node:child_process: execa cost each of the forty-odd files that
// use this ~0.1 s of CPU to load.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { roostBin } from './paths.js';

export { repoRoot, roostBin } from './paths.js';

export interface RoostRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is one document, else undefined. */
  json: any;
}

/** A ROOST_HOME private to this test process, so no test touches the real ~/.roost. */
const privateHome = mkdtempSync(join(tmpdir(), 'roost-home-'));
process.once('exit', () => rmSync(privateHome, { recursive: true, force: true }));

export interface RoostOptions {
  cwd: string;
  /** Added to this process's environment. */
  env?: Record<string, string | undefined>;
  /** Killed (SIGTERM) past this many ms; default 2 minutes. */
  timeout?: number;
}

/** Output as a person reads it: without the one final newline a command ends its output with. */
const withoutFinalNewline = (text: string) => text.replace(/\r?\n$/, '');

/** Runs `roost <args>` with a private ROOST_HOME unless the caller passes one; never rejects (a failure is its code). */
export function roost(args: string[], options: RoostOptions): Promise<RoostRun> {
  const child = spawn(process.execPath, [roostBin, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ROOST_NO_COLOR: '1', ROOST_HOME: privateHome, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: options.timeout ?? 120_000,
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  return new Promise((resolve) => {
    const done = (code: number) => {
      const out = withoutFinalNewline(Buffer.concat(stdout).toString('utf8'));
      let json: unknown;
      try {
        json = JSON.parse(out);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout: out, stderr: withoutFinalNewline(Buffer.concat(stderr).toString('utf8')), json });
    };
    child.once('error', () => done(-1));
    child.once('close', (code) => done(code ?? -1));
  });
}

/** A temporary directory removed by the returned cleanup. */
export async function tempDir(prefix = 'roost-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes a tree of files: { 'a/b.txt': 'text' }. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }
}

export const gitEnv = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.test',
};

const execFileAsync = promisify(execFile);

/** git's output without its final newline; a failed git rejects with its stderr. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, env: { ...process.env, ...gitEnv }, maxBuffer: 64 << 20 });
  return withoutFinalNewline(stdout);
}

/** A git repository with one commit on `main`, optionally wired to a fresh bare `origin`. */
export async function tempGitRepo(files: Record<string, string> = { 'README.md': '# test\n' }, opts: { origin?: boolean } = {}) {
  const { dir, cleanup } = await tempDir('roost-repo-');
  const work = join(dir, 'work');
  await mkdir(work);
  await git(work, 'init', '-q', '-b', 'main');
  await git(work, 'config', 'user.name', 'Test Author');
  await git(work, 'config', 'user.email', 'author@example.test');
  await writeTree(work, files);
  await git(work, 'add', '-A');
  await git(work, 'commit', '-q', '-m', 'initial');
  let origin: string | undefined;
  if (opts.origin) {
    origin = join(dir, 'origin.git');
    await execFileAsync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
    await git(work, 'remote', 'add', 'origin', origin);
    await git(work, 'push', '-q', '-u', 'origin', 'main');
  }
  return { root: dir, work, origin, cleanup };
}
