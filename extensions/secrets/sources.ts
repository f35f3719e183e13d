// Where secrets are looked for: the files of the working tree (tracked and untracked, minus ignored ones;
// every file outside a git repository) and every line added by a commit in the git history.
// git runs as a child process whose output is streamed, so histories larger than memory still scan.
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RoostError } from '../../protocol/errors.js';
import { listProjectFiles } from '../_shared/project-files.js';

export interface SourceLine {
  file: string;
  line: number;
  text: string;
  /** Set for lines found in history: the commit that added them. */
  commit?: string;
}

/** Files larger than this are build outputs or data, not configuration. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

export async function isGitRepo(root: string): Promise<boolean> {
  return (await run(root, ['rev-parse', '--is-inside-work-tree'])).code === 0;
}

export async function hasCommits(root: string): Promise<boolean> {
  return (await run(root, ['rev-parse', '-q', '--verify', 'HEAD'])).code === 0;
}

export async function workingTreeFiles(root: string, git: boolean): Promise<string[]> {
  if (!git) return listProjectFiles(root);
  const result = await run(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  if (result.code !== 0) throw new RoostError('VALIDATION_ERROR', `git ls-files failed: ${result.stderr.trim()}`);
  return [...new Set(result.stdout.split('\0').filter(Boolean))];
}

export async function* fileLines(root: string, file: string): AsyncGenerator<SourceLine> {
  const path = join(root, file);
  const info = await stat(path).catch(() => undefined);
  // Deleted-but-tracked files and big files are skipped; binary files are recognised by a NUL byte.
  if (!info?.isFile() || info.size > MAX_FILE_BYTES) return;
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })) {
    if (text.includes('\0')) return;
    yield { file, line: ++line, text };
  }
}

const COMMIT = '\x1ecommit ';

/** Added lines of every commit on every ref, with their line number in the commit's version of the file. */
export async function* historyLines(root: string): AsyncGenerator<SourceLine> {
  const child = spawn('git', ['-c', 'core.quotePath=false', 'log', '--all', '-p', '--no-color', '--no-ext-diff', '--no-renames', `--format=${'%x1e'}commit %H`], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  let commit = '';
  let file: string | undefined;
  let line = 0;
  // "+++ " names the file only in a diff's header: inside a hunk it is an added line starting with "++ ".
  let header = false;
  for await (const text of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    if (text.startsWith(COMMIT)) {
      commit = text.slice(COMMIT.length);
      file = undefined;
    } else if (text.startsWith('diff --git ')) {
      header = true;
      file = undefined;
    } else if (header && text.startsWith('+++ ')) {
      file = text === '+++ /dev/null' ? undefined : text.slice(6);
    } else if (text.startsWith('@@ ')) {
      header = false;
      line = Number(/\+(\d+)/.exec(text)?.[1] ?? 0);
    } else if (file !== undefined && text.startsWith('+')) {
      yield { file, line: line++, text: text.slice(1), commit };
    } else if (file !== undefined && text.startsWith(' ')) {
      line++;
    }
  }
  const code = await exited;
  if (code !== 0) throw new RoostError('VALIDATION_ERROR', `git log failed: ${stderr.trim() || `exit code ${code}`}`);
}

function run(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', (err) => resolve({ code: 127, stdout, stderr: err.message }));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
