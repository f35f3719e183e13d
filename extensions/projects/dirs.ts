// Directories a project may live in and the browser over them. Every path is resolved through its
// symlinks first, so nothing escapes the allowed roots.
import { readdir, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { validationError, RoostError } from '../../protocol/errors.js';

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

/** The real path of a project's working directory, or a VALIDATION_ERROR saying what is wrong. */
export async function checkWorkingDir(path: string, roots: string[]): Promise<string> {
  if (!isAbsolute(path)) throw validationError(`body.workingDir must be an absolute path, got "${path}"`);
  const real = await realpath(path).catch(() => undefined);
  if (!real || !(await stat(real)).isDirectory()) throw validationError(`body.workingDir ${path} is not an existing directory`);
  const allowed = await realRoots(roots);
  if (!allowed.some((root) => within(root, real))) throw validationError(`body.workingDir ${path} is outside the allowed roots (${roots.join(', ')}); the server's ROOST_ALLOWED_ROOTS sets them`);
  return real;
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
  const real = await realpath(path).catch(() => undefined);
  if (!real) throw new RoostError('NOT_FOUND', `directory ${path} not found`);
  const root = allowed.find((r) => within(r, real));
  if (!root) throw new RoostError('FORBIDDEN', `${path} is outside the allowed roots; the server's ROOST_ALLOWED_ROOTS sets them`);
  const entries = await readdir(real, { withFileTypes: true }).catch(() => {
    throw validationError(`${path} is not a readable directory`);
  });
  const dirs = entries
    .filter((e) => e.isDirectory() && (showHidden || !e.name.startsWith('.')))
    .map((e) => ({ name: e.name, path: join(real, e.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { path: real, parent: real === root ? null : dirname(real), roots: allowed, dirs };
}
