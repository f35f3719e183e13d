// The files of a project, as git sees them (tracked plus untracked-but-not-ignored, so .gitignore is
// honoured), or by walking the tree past the usual build and dependency folders outside git.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';

const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', 'target', 'out', 'coverage', 'vendor', 'venv', '__pycache__', 'bower_components']);

export interface FileListing {
  /** Paths relative to the root, with forward slashes, sorted by code unit. */
  files: string[];
  source: 'git' | 'walk';
}

export async function listProjectFiles(root: string): Promise<FileListing> {
  const listed = await gitFiles(root);
  const files = listed ?? (await walk(root, ''));
  return { files: [...new Set(files)].sort(byCodeUnit), source: listed ? 'git' : 'walk' };
}

/** null when root is not inside a git work tree (or git is missing). */
async function gitFiles(root: string): Promise<string[] | null> {
  const inside = await execa('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, reject: false });
  if (inside.exitCode !== 0 || String(inside.stdout).trim() !== 'true') return null;
  const run = (args: string[]) => execa('git', ['-c', 'core.quotepath=off', 'ls-files', '-z', ...args], { cwd: root, maxBuffer: 512 * 1024 * 1024 });
  const [present, deleted] = await Promise.all([run(['-co', '--exclude-standard']), run(['-d'])]);
  const gone = new Set(split(String(deleted.stdout)));
  return split(String(present.stdout)).filter((path) => !gone.has(path));
}

async function walk(root: string, prefix: string): Promise<string[]> {
  const entries = await readdir(join(root, prefix), { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name)) files.push(...(await walk(root, path)));
    } else if (entry.isFile()) {
      files.push(path);
    }
  }
  return files;
}

function split(text: string): string[] {
  return text.split('\0').filter(Boolean);
}

export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
