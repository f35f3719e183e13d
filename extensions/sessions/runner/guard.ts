// A shell command can write anything its user may, so protected files are guarded around each
// run_command: snapshot every protected file of the working tree before, and afterwards put back any
// that changed or vanished and remove any that appeared. Links are removed before a restore, so a
// restore never writes through a symlink the command planted.
import { lstat, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Workspace } from './workspace.js';

const SKIP_DIRS = new Set(['.git', 'node_modules']);
const MAX_ENTRIES = 50_000;
const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** Content of each protected regular file; null for one that exists but is not guarded (a link, a directory, too large). */
export type Snapshot = Map<string, Buffer | null>;

/** Every protected file under the root, with its content (links are not followed). */
export async function snapshotProtected(ws: Workspace): Promise<Snapshot> {
  const found: Snapshot = new Map();
  for (const path of await findProtected(ws)) {
    const info = await lstat(path).catch(() => undefined);
    found.set(path, info?.isFile() && info.size <= MAX_FILE_BYTES ? await readFile(path) : null);
  }
  return found;
}

/** Puts protected files back as they were; returns what had to be repaired (relative paths). */
export async function restoreProtected(ws: Workspace, before: Snapshot): Promise<string[]> {
  const repaired: string[] = [];
  for (const [path, content] of before) {
    if (content === null) continue;
    const info = await lstat(path).catch(() => undefined);
    const same = info?.isFile() && info.nlink === 1 && (await readFile(path)).equals(content);
    if (same) continue;
    await rm(path, { recursive: true, force: true });
    await writeFile(path, content);
    repaired.push(ws.display(path));
  }
  for (const path of await findProtected(ws)) {
    if (before.has(path)) continue;
    await rm(path, { recursive: true, force: true });
    repaired.push(ws.display(path));
  }
  return repaired;
}

async function findProtected(ws: Workspace): Promise<string[]> {
  const out: string[] = [];
  const queue = [ws.root];
  let seen = 0;
  while (queue.length > 0 && seen < MAX_ENTRIES) {
    const dir = queue.shift()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      seen++;
      const path = join(dir, entry.name);
      if (ws.isProtected(path)) out.push(path);
      else if (entry.isDirectory() && !SKIP_DIRS.has(entry.name)) queue.push(path);
    }
  }
  return out;
}
