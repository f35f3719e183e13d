// `npm run build`, after tsc: the in-tree extensions' and plugins' manifests read once, into
// dist/manifests.json (kernel/host/prepared-manifests.ts), so that a start reads none of them again
// while they are unchanged.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { readManifest } = await import(join(root, 'dist/kernel/host/manifest.js'));
const { PREPARED_FILE, toPrepared } = await import(join(root, 'dist/kernel/host/prepared-manifests.js'));

/** The homes of in-tree manifests: the server extensions and the bundled CLI plugins. */
const MANIFEST_HOMES = ['extensions', 'plugins'];

const prepared = {};
for (const home of MANIFEST_HOMES) {
  for (const entry of readdirSync(join(root, home), { withFileTypes: true })) {
    const dir = join(root, home, entry.name);
    if (!entry.isDirectory() || entry.name.startsWith('_') || !existsSync(join(dir, 'plugin.toml'))) continue;
    const sources = new Set();
    const manifest = await readManifest(dir, sources);
    prepared[relative(root, dir)] = toPrepared(manifest, sources);
  }
}
writeFileSync(PREPARED_FILE, JSON.stringify(prepared));
process.stdout.write(`prepared ${Object.keys(prepared).length} manifests in ${relative(root, PREPARED_FILE)}\n`);
