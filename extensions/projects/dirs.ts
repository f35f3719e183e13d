// Directories a project may live in and the browser over them. Every path is resolved through its
// symlinks first, so nothing escapes the allowed roots. This extension runs in a sandbox that shows it
// only the allowed roots, so a path (or a link target) outside them does not exist here: links are
// followed by hand, and a path that leads outside is refused as outside, not as missing.
import { lstat, mkdir, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { validationError, RoostError } from '../../protocol/errors.js';
import type { Roots } from '../../sdk/workspace-roots.js';

export function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

async function realRoots(roots: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const root of roots) {
    const real = await realpath(root).catch(() => undefined);
    if (real) out.push(real);
  }
  return out;
}

const MAX_LINKS = 40;

/**
 * Where an absolute path leads with every symlink followed, whether or not its end exists (unlike
 * realpath): `exists` is false when some part of it is missing.
 */
async function followLinks(path: string): Promise<{ path: string; exists: boolean }> {
  let parts = resolve(path).split(sep).filter(Boolean);
  let current: string = sep;
  for (let links = 0, i = 0; i < parts.length; i++) {
    const next = join(current, parts[i]!);
    const info = await lstat(next).catch(() => undefined);
    if (!info) return { path: join(next, ...parts.slice(i + 1)), exists: false };
    if (!info.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS) throw validationError(`${path} has too many levels of symbolic links`);
    parts = [...resolve(current, await readlink(next)).split(sep).filter(Boolean), ...parts.slice(i + 1)];
    current = sep;
    i = -1;
  }
  return { path: current, exists: true };
}

/**
 * The real path of a project's working directory, or a VALIDATION_ERROR saying what is wrong. In a
 * tenant's own folder a missing directory is made (the tenant has no other way to make one).
 */
export async function checkWorkingDir(path: string, roots: Roots): Promise<string> {
  if (!isAbsolute(path)) throw validationError(`body.workingDir must be an absolute path, got "${path}"`);
  const target = await followLinks(path);
  const allowed = await realRoots(roots.dirs);
  if (!allowed.some((root) => within(root, target.path))) {
    throw validationError(roots.own
      ? `body.workingDir ${path} is outside this tenant's folder (${roots.dirs.join(', ')}); only the instance owner's ROOST_ALLOWED_ROOTS can share other folders`
      : `body.workingDir ${path} is outside the allowed roots (${roots.dirs.join(', ')}); the server's ROOST_ALLOWED_ROOTS sets them`);
  }
  if (!target.exists && roots.own) await mkdir(target.path, { recursive: true });
  else if (!target.exists || !(await stat(target.path)).isDirectory()) throw validationError(`body.workingDir ${path} is not an existing directory`);
  return target.path;
}

export interface Listing {
  path: string | null;
  parent: string | null;
  roots: string[];
  dirs: Array<{ name: string; path: string }>;
}

export async function browse(path: string | undefined, roots: string[], showHidden: boolean): Promise<Listing> {
  const allowed = await realRoots(roots);
  if (!path) return { path: null, parent: null, roots: allowed, dirs: allowed.map((root) => ({ name: root, path: root })) };
  if (!isAbsolute(path)) throw validationError('query.path must be an absolute path');
  const target = await followLinks(path);
  const root = allowed.find((r) => within(r, target.path));
  if (!root) throw new RoostError('FORBIDDEN', `${path} is outside the allowed roots; the server's ROOST_ALLOWED_ROOTS sets them`);
  if (!target.exists) throw new RoostError('NOT_FOUND', `directory ${path} not found`);
  const real = target.path;
  const entries = await readdir(real, { withFileTypes: true }).catch(() => {
    throw validationError(`${path} is not a readable directory`);
  });
  const dirs = entries
    .filter((e) => e.isDirectory() && (showHidden || !e.name.startsWith('.')))
    .map((e) => ({ name: e.name, path: join(real, e.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { path: real, parent: real === root ? null : dirname(real), roots: allowed, dirs };
}
