// The extensions in folders of extensions: each sub-folder's plugin.toml read (manifest.ts), those
// without a [server] table left out, a name seen twice kept once. The server's discovery reads them here.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { assertServerProtocol, readManifest, type Manifest } from './manifest.js';

/**
 * The extensions in the sub-folders of `dir` (not those starting with "_"), in folder name order: each
 * folder's manifest with a [server] table, or why it could not be read. A folder without a plugin.toml,
 * or whose plugin has no [server] table, is left out. The manifests are read at once.
 */
export async function readManifestDir(dir: string): Promise<Array<{ folder: string; manifest: Manifest | Error }>> {
  let folders: string[];
  try {
    folders = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith('_')).map((e) => e.name).sort();
  } catch {
    return [];
  }
  const read = await Promise.all(folders.map(async (folder) => {
    try {
      const manifest = await readManifest(join(dir, folder));
      if (manifest.server) assertServerProtocol(manifest);
      return { folder, manifest };
    } catch (err) {
      return { folder, manifest: err as Error };
    }
  }));
  return read.filter(({ manifest }) => (manifest instanceof Error ? !(manifest instanceof RoostError && manifest.message.startsWith('no plugin.toml')) : manifest.server !== undefined));
}

/** The extensions of several dirs, in order; one that cannot be read, or whose name came earlier, is logged and left out. */
export async function readManifestDirs(dirs: string[], log: (level: string, message: string) => void): Promise<Manifest[]> {
  const found: Manifest[] = [];
  for (const dir of dirs) {
    for (const { folder, manifest } of await readManifestDir(dir)) {
      if (manifest instanceof Error) log('warn', `extension ${folder}: ${manifest.message}`);
      else if (found.some((m) => m.name === manifest.name)) log('warn', `extension ${manifest.name} in ${manifest.dir}: an extension of that name is already registered; skipped`);
      else found.push(manifest);
    }
  }
  return found;
}
