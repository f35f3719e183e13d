// Where the package lives on disk, whether running from dist/ (shipped) or from source (tests via tsx).
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'schemas'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the roost package root above ${start}`);
    dir = parent;
  }
  return dir;
}

export const packageRoot = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
export const schemasDir = join(packageRoot, 'schemas');
export const distDir = join(packageRoot, 'dist');

/**
 * The file to execute for a plugin entry. In-tree TypeScript sources run as their compiled JavaScript
 * under dist/ (the shipped server never needs tsx); everything else runs as written.
 */
export function runnableEntry(file: string): string {
  const absolute = resolve(file);
  if (!absolute.endsWith('.ts')) return absolute;
  const inTree = relative(packageRoot, absolute);
  if (inTree.startsWith('..') || inTree.startsWith('dist')) return absolute;
  return join(distDir, inTree.replace(/\.ts$/, '.js'));
}
