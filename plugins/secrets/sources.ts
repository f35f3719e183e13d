// Where secrets are looked for in the working tree: its files (tracked and untracked, minus ignored ones;
// every file outside a git repository), read whole (each at most 2 MiB). The history is history.ts's.
import { spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { listProjectFiles } from '../../lib/project-files.js';

export interface SourceLine {
  file: string;
  line: number;
  text: string;
}

/** Files larger than this are build outputs or data, not configuration. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

export async function isGitRepo(root: string): Promise<boolean> {
  return (await git(root, ['rev-parse', '--is-inside-work-tree'])).code === 0;
}

export async function hasCommits(root: string): Promise<boolean> {
  return (await git(root, ['rev-parse', '-q', '--verify', 'HEAD'])).code === 0;
}

export async function workingTreeFiles(root: string, inGit: boolean): Promise<string[]> {
  if (!inGit) return listProjectFiles(root);
  const result = await git(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  if (result.code !== 0) throw new RoostError('VALIDATION_ERROR', `git ls-files failed: ${result.stderr.trim()}`);
  return [...new Set(result.stdout.split('\0').filter(Boolean))];
}

/** The lines of one file; none for a deleted-but-tracked file, a big one, or a binary one (a NUL byte). */
export async function fileLines(root: string, file: string): Promise<SourceLine[]> {
  const path = join(root, file);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_FILE_BYTES) return [];
  const text = await readFile(path, 'utf8').catch(() => '');
  if (text.includes('\0')) return [];
  return text.split(/\r?\n/).map((line, at) => ({ file, line: at + 1, text: line }));
}

/** A git command's exit code and output. */
export function git(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
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
