// `npm run build`, after tsc: the in-tree extensions' and plugins' manifests read once, into
// dist/manifests.json (kernel/host/prepared-manifests.ts), so that a start reads none of them again
// while they are unchanged.
import { writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inTreeManifestDirs } from './in-tree-manifests.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { readManifest } = await import(join(root, 'dist/kernel/host/manifest.js'));
const { PREPARED_FILE, toPrepared } = await import(join(root, 'dist/kernel/host/prepared-manifests.js'));

const prepared = {};
for (const dir of inTreeManifestDirs(root)) {
  const sources = new Set();
  const manifest = await readManifest(dir, sources);
  prepared[relative(root, dir)] = toPrepared(manifest, sources);
}
writeFileSync(PREPARED_FILE, JSON.stringify(prepared));
process.stdout.write(`prepared ${Object.keys(prepared).length} manifests in ${relative(root, PREPARED_FILE)}\n`);
