// What a review looks at: the working changes against HEAD (staged, unstaged and untracked files), or
// one file. Big inputs are cut to a size every model can take, and the cut is reported.
import { open, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { execa } from 'execa';
import { RoostError } from '../../protocol/errors.js';
import { findProjectRoot } from '../../lib/project/detect.js';
import { usageError } from '../output.js';

/** Above this a file is not sent whole (for --file) or is skipped (an untracked file in a diff). */
export const MAX_FILE_BYTES = 256 * 1024;
/** The diff sent to the models is cut here. */
export const MAX_DIFF_CHARS = 200_000;
/** The tree object of an empty repository: the base when there is no commit yet. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export interface ReviewTarget {
  kind: 'diff' | 'file';
  /** The file under review, relative to the project root (file reviews only). */
  path?: string;
  /** Every file the content covers, relative to the project root. */
  files: string[];
  /** Untracked files left out of a diff, with the reason. */
  skipped: Array<{ path: string; reason: string }>;
  content: string;
  truncated: boolean;
}

export async function diffTarget(cwd: string): Promise<ReviewTarget> {
  const root = await gitTopLevel(cwd);
  const base = (await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], false)) === null ? EMPTY_TREE : 'HEAD';
  const tracked = (await git(root, ['diff', '--no-color', '--no-ext-diff', '--no-textconv', base])) ?? '';
  const changed = splitZ((await git(root, ['diff', '--name-only', '-z', base])) ?? '');
  const untracked = splitZ((await git(root, ['ls-files', '--others', '--exclude-standard', '-z'])) ?? '');

  const skipped: ReviewTarget['skipped'] = [];
  const added: string[] = [];
  const pieces = [tracked];
  let size = tracked.length;
  for (const path of untracked) {
    if (size > MAX_DIFF_CHARS) {
      skipped.push({ path, reason: 'the diff is already at its size limit' });
      continue;
    }
    const read = await readReviewable(join(root, path));
    if ('reason' in read) {
      skipped.push({ path, reason: read.reason });
      continue;
    }
    added.push(path);
    pieces.push(newFileDiff(path, read.text));
    size += pieces[pieces.length - 1]!.length;
  }
  const files = [...new Set([...changed, ...added])].sort(byCodeUnit);
  return { kind: 'diff', files, skipped, ...cut(pieces.filter(Boolean).join(''), MAX_DIFF_CHARS) };
}

export async function fileTarget(cwd: string, path: string): Promise<ReviewTarget> {
  const full = resolve(cwd, path);
  const info = await stat(full).catch(() => null);
  if (!info) throw new RoostError('NOT_FOUND', `--file ${path}: no such file`);
  if (!info.isFile()) throw usageError(`--file ${path}: not a regular file`);
  const read = await readReviewable(full);
  if ('reason' in read) throw new RoostError('VALIDATION_ERROR', `--file ${path}: ${read.reason}`);
  const fromRoot = relative(findProjectRoot(cwd), full);
  const shown = fromRoot.startsWith('..') || isAbsolute(fromRoot) ? full : fromRoot;
  const numbered = read.text
    .split('\n')
    .map((line, i) => `${String(i + 1).padStart(5)}| ${line}`)
    .join('\n');
  return { kind: 'file', path: shown, files: [shown], skipped: [], content: numbered, truncated: false };
}

async function readReviewable(path: string): Promise<{ text: string } | { reason: string }> {
  const info = await stat(path);
  if (info.size > MAX_FILE_BYTES) return { reason: `larger than ${MAX_FILE_BYTES / 1024} KiB` };
  if (await looksBinary(path)) return { reason: 'binary' };
  return { text: await readFile(path, 'utf8') };
}

/** Git's own test: a NUL byte in the first 8000 bytes means binary. */
async function looksBinary(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8000), 0, 8000, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

function newFileDiff(path: string, text: string): string {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  const body = text === '' ? '' : `@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`;
  return `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n${body}`;
}

function cut(content: string, max: number): { content: string; truncated: boolean } {
  return content.length <= max ? { content, truncated: false } : { content: content.slice(0, max), truncated: true };
}

async function gitTopLevel(cwd: string): Promise<string> {
  const top = await git(cwd, ['rev-parse', '--show-toplevel'], false);
  if (top === null) throw usageError('not inside a git repository: pass --file <path> to review one file');
  return top.trim();
}

/** stdout of a git command; null when it fails and `required` is false. */
async function git(cwd: string, args: string[], required = true): Promise<string | null> {
  const result = await execa('git', ['-c', 'core.quotepath=off', ...args], { cwd, reject: false, stripFinalNewline: false });
  if (result.exitCode === 0) return String(result.stdout);
  if (!required) return null;
  throw new RoostError('GIT_ERROR', `git ${args[0]} failed: ${String(result.stderr).trim()}`);
}

function splitZ(text: string): string[] {
  return text.split('\0').filter(Boolean);
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
