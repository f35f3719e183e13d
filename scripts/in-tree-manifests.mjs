// The folders of the in-tree manifests, for the build steps that read them (bundle-extensions.mjs,
// prepare-manifests.mjs): each sub-folder of the server extensions' and the bundled CLI plugins' homes,
// not starting with "_", that holds a plugin.toml.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const MANIFEST_HOMES = ['extensions', 'plugins'];

export function inTreeManifestDirs(root) {
  return MANIFEST_HOMES.flatMap((home) =>
    readdirSync(join(root, home), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('_') && existsSync(join(root, home, entry.name, 'plugin.toml')))
      .map((entry) => join(root, home, entry.name)),
  );
}
