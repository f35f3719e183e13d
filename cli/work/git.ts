// git as roost uses it: never prompts (GIT_TERMINAL_PROMPT=0), and a failure becomes a RoostError that
// carries git's own explanation.
import { execa } from 'execa';
import { RoostError } from '../../protocol/errors.js';

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs git; resolves whatever the exit code. */
export async function gitTry(cwd: string, args: string[]): Promise<GitResult> {
  const result = await execa('git', args, {
    cwd, reject: false, stdin: 'ignore', env: { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
  });
  if (result.failed && result.exitCode === undefined) {
    throw new RoostError('COMMAND_NOT_FOUND', 'git: command not found (is git installed and on PATH?)');
  }
  return { exitCode: result.exitCode ?? 1, stdout: String(result.stdout).trimEnd(), stderr: String(result.stderr).trim() };
}

/** Runs git and returns its trimmed stdout; a non-zero exit throws GIT_ERROR with git's message. */
export async function git(cwd: string, args: string[]): Promise<string> {
  const result = await gitTry(cwd, args);
  if (result.exitCode !== 0) {
    const why = result.stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('hint:')).join(' ') || `exit ${result.exitCode}`;
    throw new RoostError('GIT_ERROR', `git ${args[0]} failed: ${why}`);
  }
  return result.stdout;
}

/** The top of the work tree containing cwd; a clear error outside a repository. */
export async function repoRoot(cwd: string): Promise<string> {
  const result = await gitTry(cwd, ['rev-parse', '--show-toplevel']);
  if (result.exitCode !== 0) throw new RoostError('NOT_A_REPOSITORY', `${cwd} is not inside a git repository`);
  return result.stdout;
}

/** The checked-out branch; an error on a detached HEAD. */
export async function currentBranch(root: string): Promise<string> {
  const result = await gitTry(root, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (result.exitCode !== 0) throw new RoostError('DETACHED_HEAD', 'HEAD is detached; check out a branch first');
  return result.stdout;
}

/** Changed paths as `git status --porcelain` lists them (untracked files only when asked). */
export async function changedPaths(root: string, options: { untracked: boolean }): Promise<string[]> {
  const out = await git(root, ['status', '--porcelain', `--untracked-files=${options.untracked ? 'all' : 'no'}`]);
  return out === '' ? [] : out.split('\n').map((line) => line.slice(3));
}

/** The URL of a remote; an error naming how to add it when there is none. */
export async function remoteUrl(root: string, remote = 'origin'): Promise<string> {
  const result = await gitTry(root, ['remote', 'get-url', remote]);
  if (result.exitCode !== 0) {
    throw new RoostError('NO_REMOTE', `no remote "${remote}"; add one with: git remote add ${remote} <url>`);
  }
  return result.stdout;
}

/** Commits in `from..to`. */
export async function countCommits(root: string, range: string): Promise<number> {
  return Number(await git(root, ['rev-list', '--count', range]));
}

export async function refExists(root: string, ref: string): Promise<boolean> {
  return (await gitTry(root, ['rev-parse', '--verify', '--quiet', ref])).exitCode === 0;
}
