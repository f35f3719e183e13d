// Manifests read at build time (scripts/prepare-manifests.mjs writes dist/manifests.json): the in-tree
// extensions and plugins, each validated and normalised with its schema files inlined, so that a start
// does not parse forty TOML files and a few hundred JSON Schemas again (~0.1 s of CPU per start). A
// prepared manifest is used only while every file it was read from has the size and modification time
// it had; otherwise manifest.ts reads the folder as it would without one.
import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { distDir, packageRoot } from '../../lib/paths.js';
import type { Manifest } from './manifest.js';

export const PREPARED_FILE = join(distDir, 'manifests.json');

/** A source file as it was read: its path under the package root, its size and its modification time. */
type Source = [path: string, size: number, mtimeMs: number];

interface Prepared {
  sources: Source[];
  /** The manifest as JSON, its `dir` left empty: parsed on use, so each caller gets an object of its own. */
  manifest: string;
}

/** dist/manifests.json: each manifest by its folder under the package root. */
export type PreparedFile = Record<string, Prepared>;

let prepared: PreparedFile | null | undefined;

function preparedFile(): PreparedFile | null {
  if (prepared === undefined) {
    try {
      prepared = JSON.parse(readFileSync(PREPARED_FILE, 'utf8')) as PreparedFile;
    } catch {
      prepared = null; // not built (a checkout run from source): every manifest is read
    }
  }
  return prepared;
}

function unchanged([path, size, mtimeMs]: Source): boolean {
  try {
    const stat = statSync(join(packageRoot, path));
    return stat.size === size && stat.mtimeMs === mtimeMs;
  } catch {
    return false;
  }
}

/** The prepared manifest of the folder `dir`, while its sources are as they were; else undefined. */
export function preparedManifest(dir: string, file = preparedFile()): Manifest | undefined {
  const entry = file?.[relative(packageRoot, dir)];
  if (!entry || !entry.sources.every(unchanged)) return undefined;
  const manifest = JSON.parse(entry.manifest) as Manifest;
  manifest.dir = dir;
  return manifest;
}

/** The entry of a manifest read from `sources` (absolute paths), for the build to write. */
export function toPrepared(manifest: Manifest, sources: Iterable<string>): Prepared {
  return {
    sources: [...sources].sort().map((file) => {
      const stat = statSync(file);
      return [relative(packageRoot, file), stat.size, stat.mtimeMs];
    }),
    manifest: JSON.stringify({ ...manifest, dir: '' }),
  };
}
