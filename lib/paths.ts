// Where the package lives on disk, whether running from dist/ (shipped) or from source (tests via tsx).
import { existsSync, statSync } from 'node:fs';
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

/** One file per process entry, made by scripts/bundle-extensions.mjs (npm run build). */
export const bundlesDir = join(distDir, 'bundles');

/**
 * The file to execute for a plugin entry. In-tree TypeScript sources run as their bundle under
 * dist/bundles when the build made one (one file to load instead of a few hundred modules:
 * `<name>.cjs`, compiled with a code cache, or an ES module `<name>.js`), else as their compiled
 * JavaScript under dist/ (the shipped server never needs tsx); everything else runs as written. A
 * bundle older than the compiled file is stale (tsc ran alone since, rewriting every output) and is
 * passed over.
 */
export function runnableEntry(file: string): string {
  const absolute = resolve(file);
  if (!absolute.endsWith('.ts')) return absolute;
  const inTree = relative(packageRoot, absolute);
  if (inTree.startsWith('..') || inTree.startsWith('dist')) return absolute;
  const compiled = join(distDir, inTree.replace(/\.ts$/, '.js'));
  const compiledTime = statSync(compiled, { throwIfNoEntry: false })?.mtimeMs;
  for (const bundle of [join(bundlesDir, inTree.replace(/\.ts$/, '.cjs')), join(bundlesDir, relative(distDir, compiled))]) {
    const bundleTime = statSync(bundle, { throwIfNoEntry: false })?.mtimeMs;
    if (bundleTime !== undefined && (compiledTime === undefined || bundleTime >= compiledTime)) return bundle;
  }
  return compiled;
}
