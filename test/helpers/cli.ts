// Runs the built roost binary the way a person or a script would, in temporary directories and git
// repositories that the test owns.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type Options } from 'execa';

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

/** Runs `roost <args>` with a private ROOST_HOME unless the caller passes one. */
export async function roost(args: string[], options: Options & { cwd: string }): Promise<RoostRun> {
  const result = await execa(process.execPath, [roostBin, ...args], {
    reject: false,
    stdin: 'ignore',
    timeout: 120_000,
    ...options,
    env: { ROOST_NO_COLOR: '1', ROOST_HOME: privateHome, ...options.env },
  });
  const stdout = String(result.stdout ?? '');
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code: result.exitCode ?? -1, stdout, stderr: String(result.stderr ?? ''), json };
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

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execa('git', args, { cwd, env: gitEnv });
  return String(stdout);
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
    await execa('git', ['init', '-q', '--bare', '-b', 'main', origin]);
    await git(work, 'remote', 'add', 'origin', origin);
    await git(work, 'push', '-q', '-u', 'origin', 'main');
  }
  return { root: dir, work, origin, cleanup };
}
