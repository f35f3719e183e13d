// The project's own files, walked from its root without the folders that hold dependencies, builds or
// caches (for plugins that cannot or need not ask git). Capped so a huge tree cannot stall a command.
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

export const SKIPPED_DIRS = new Set(['.git', 'node_modules', 'target', 'dist', 'build', '.venv', 'venv', '__pycache__', 'vendor', '.tox', '.next', 'coverage']);
const MAX_FILES = 100_000;

/** Paths relative to root, sorted. */
export async function listProjectFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const pending = [root];
  while (pending.length > 0 && files.length < MAX_FILES) {
    const dir = pending.pop()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) pending.push(join(dir, entry.name));
      else if (entry.isFile()) files.push(relative(root, join(dir, entry.name)));
    }
  }
  return files.sort();
}
