// The git a work task needs, run as child processes (never a shell): a worktree on a branch, the files
// it changed against its base, a commit, a push. `safe.directory` lets git work on a repository whose
// files another user owns (this extension runs as `nobody` in its sandbox).
import { execFile } from 'node:child_process';
import { appendFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { RoostError } from '../../protocol/errors.js';

const AUTHOR = ['-c', 'user.name=Roost work task', '-c', 'user.email=work-tasks@roost.invalid'];
/** Where a repository's work-task worktrees live, inside it (and excluded from its status). */
export const WORKTREES = '.roost-worktrees';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function git(cwd: string, args: string[], options: { allowFail?: boolean; timeoutMs?: number } = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-c', 'safe.directory=*', ...AUTHOR, ...args], { cwd, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      if (code !== 0 && !options.allowFail) {
        reject(new RoostError('UPSTREAM_ERROR', `git ${args[0]} failed in ${cwd}: ${(stderr || err?.message || '').trim().slice(0, 2000)}`));
        return;
      }
      resolve({ code, stdout, stderr });
    });
  });
}

const line = async (cwd: string, args: string[]) => (await git(cwd, args)).stdout.trim();

export async function repoTop(dir: string): Promise<string> {
  const result = await git(dir, ['rev-parse', '--show-toplevel'], { allowFail: true });
  if (result.code !== 0) throw new RoostError('VALIDATION_ERROR', `the project folder ${dir} is not a git repository`);
  return result.stdout.trim();
}

export const currentBranch = (repo: string) => line(repo, ['rev-parse', '--abbrev-ref', 'HEAD']);

export async function originUrl(repo: string): Promise<string | undefined> {
  const result = await git(repo, ['remote', 'get-url', 'origin'], { allowFail: true });
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** "owner/name" from a remote URL: https://host/owner/name.git, git@host:owner/name.git or a path …/owner/name.git. */
export function repoSlug(url: string): string | undefined {
  const match = /([A-Za-z0-9_.-]+)[/:]([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(url);
  return match ? `${match[1]}/${match[2]}` : undefined;
}

/**
 * The task's worktree on its branch (made from `base`, or the branch as it is when it exists already).
 * One made before a restart is kept; one whose making a crash interrupted is made again.
 */
export async function addWorktree(repo: string, dir: string, branch: string, base: string): Promise<void> {
  await excludeWorktrees(repo);
  if (existsSync(join(dir, '.git'))) {
    const admin = await unfinishedWorktree(dir);
    if (admin === null) return;
    await rm(dir, { recursive: true, force: true });
    if (admin) await rm(admin, { recursive: true, force: true });
  } else {
    // Interrupted before it wrote dir/.git: git registered the path and locked it ("initializing"), so
    // `worktree prune` keeps the registration and `worktree add` refuses the path ("missing but locked").
    const admin = await registrationOf(repo, dir);
    if (admin) await rm(admin, { recursive: true, force: true });
  }
  await git(repo, ['worktree', 'prune']);
  // Interrupted while git wrote the task's branch: the ref's lock file stays, and every later `worktree
  // add` fails ("cannot lock ref … File exists"). The branch is this task's alone, and its last git is gone.
  await rm(join(await commonDir(repo), 'refs', 'heads', `${branch}.lock`), { force: true });
  const exists = (await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { allowFail: true })).code === 0;
  await mkdir(dirname(dir), { recursive: true });
  await git(repo, exists ? ['worktree', 'add', dir, branch] : ['worktree', 'add', '-b', branch, dir, base]);
}

/**
 * null for a worktree `git worktree add` finished; else its administrative folder (in the repository's
 * .git/worktrees), or '' when its .git file names none. While git adds a worktree, that folder holds a
 * `locked` file saying "initializing" and HEAD does not name a commit until the checkout is under way.
 */
async function unfinishedWorktree(dir: string): Promise<string | null> {
  const pointer = /^gitdir: (.+)$/m.exec(await readFile(join(dir, '.git'), 'utf8').catch(() => ''))?.[1]?.trim();
  if (!pointer) return '';
  const admin = isAbsolute(pointer) ? pointer : join(dir, pointer);
  const lock = await readFile(join(admin, 'locked'), 'utf8').catch(() => undefined);
  if (lock?.trim() === 'initializing' || !existsSync(join(admin, 'commondir'))) return admin;
  const head = await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { allowFail: true });
  return head.code === 0 ? null : admin;
}

/** The administrative folder (in the repository's .git/worktrees) that registers a worktree at `dir`, if any. */
async function registrationOf(repo: string, dir: string): Promise<string | undefined> {
  const worktrees = join(await commonDir(repo), 'worktrees');
  for (const name of await readdir(worktrees).catch(() => [])) {
    const gitdir = (await readFile(join(worktrees, name, 'gitdir'), 'utf8').catch(() => '')).trim();
    if (gitdir === join(dir, '.git')) return join(worktrees, name);
  }
  return undefined;
}

async function commonDir(repo: string): Promise<string> {
  const common = await line(repo, ['rev-parse', '--git-common-dir']);
  return isAbsolute(common) ? common : join(repo, common);
}

async function excludeWorktrees(repo: string): Promise<void> {
  const file = join(await commonDir(repo), 'info', 'exclude');
  const text = await readFile(file, 'utf8').catch(() => '');
  if (!text.split('\n').includes(`/${WORKTREES}/`)) {
    await mkdir(dirname(file), { recursive: true });
    await appendFile(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}/${WORKTREES}/\n`);
  }
}

export async function removeWorktree(repo: string, dir: string): Promise<void> {
  if (existsSync(dir)) return void (await git(repo, ['worktree', 'remove', '--force', '--force', dir]));
  // One whose making a crash interrupted before its folder: `worktree prune` would keep its locked registration.
  const admin = await registrationOf(repo, dir);
  if (admin) await rm(admin, { recursive: true, force: true });
}

/** Every path the worktree changes against `base`: committed (even if undone since), staged, unstaged and untracked. */
export async function changedFiles(worktree: string, base: string): Promise<string[]> {
  const committed = (await git(worktree, ['log', '--format=', '--name-only', '--no-renames', `${base}..HEAD`])).stdout;
  const tracked = (await git(worktree, ['diff', '--name-only', '--no-renames', base])).stdout;
  const untracked = (await git(worktree, ['ls-files', '--others', '--exclude-standard'])).stdout;
  return [...new Set(`${committed}\n${tracked}\n${untracked}`.split('\n').filter(Boolean))];
}

/** Commits whatever is uncommitted; false when there was nothing. */
export async function commitAll(worktree: string, message: string): Promise<boolean> {
  await git(worktree, ['add', '-A']);
  if ((await git(worktree, ['diff', '--cached', '--quiet'], { allowFail: true })).code === 0) return false;
  await git(worktree, ['commit', '-q', '-m', message]);
  return true;
}

export async function push(worktree: string, branch: string): Promise<void> {
  await git(worktree, ['push', '-q', 'origin', `HEAD:refs/heads/${branch}`]);
}
