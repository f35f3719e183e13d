// git as roost uses it: never prompts (GIT_TERMINAL_PROMPT=0), and a failure becomes a RoostError that
// carries git's own explanation.
import { execFile } from 'node:child_process';
import { RoostError } from '../../protocol/errors.js';

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Far above any output roost asks git for (a status, a log), yet bounded. */
const GIT_MAX_OUTPUT = 256 * 1024 * 1024;

/** Runs git; resolves whatever the exit code. node:child_process, not execa: `roost run` and every plugin command ask git for the project's state, and execa alone costs more to load than they may take. */
export function gitTry(cwd: string, args: string[]): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, {
      cwd, encoding: 'utf8', maxBuffer: GIT_MAX_OUTPUT, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    }, (err, stdout, stderr) => {
      const code = (err as NodeJS.ErrnoException | null)?.code;
      if (code === 'ENOENT') return reject(new RoostError('COMMAND_NOT_FOUND', 'git: command not found (is git installed and on PATH?)'));
      resolve({ exitCode: err ? (typeof code === 'number' ? code : 1) : 0, stdout: stdout.trimEnd(), stderr: stderr.trim() });
    });
    child.stdin?.end();
  });
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
