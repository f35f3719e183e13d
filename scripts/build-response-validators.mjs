// `npm run build`, after the manifests are prepared: the standalone validators of the in-tree
// extensions' response schemas, one module per extension (kernel/http/response-validators.ts), for the
// servers that check every success body against its declared schema (ROOST_CHECK_RESPONSES=1).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inTreeManifestDirs } from './in-tree-manifests.mjs';
import { standaloneAjv, standaloneCode } from './standalone-ajv.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { preparedManifest } = await import(join(root, 'dist/kernel/host/prepared-manifests.js'));
const { responseSchemaKey, responseValidatorsDir } = await import(join(root, 'dist/kernel/http/response-validators.js'));

await rm(responseValidatorsDir, { recursive: true, force: true });
await mkdir(responseValidatorsDir, { recursive: true });
let written = 0;
const left = [];
await Promise.all(inTreeManifestDirs(root).map(async (dir) => {
  const manifest = preparedManifest(dir);
  const schemas = new Map();
  for (const route of manifest?.server?.routes ?? []) {
    if (route.doc?.response) schemas.set(responseSchemaKey(route.doc.response), route.doc.response);
  }
  if (schemas.size === 0) return;
  // One ajv per schema: two schemas of one extension may carry the same $id.
  const modules = [];
  for (const [key, schema] of schemas) {
    try {
      const ajv = standaloneAjv();
      ajv.addSchema(schema, key);
      modules.push(`exports.${key} = (() => { const module = { exports: {} }; const exports = module.exports;\n${standaloneCode(ajv, { default: key })}\nreturn module.exports.default; })();`);
    } catch (err) {
      left.push(`${manifest.name} (${err.message.split('\n')[0]})`);
    }
  }
  await writeFile(join(responseValidatorsDir, `${manifest.name}.cjs`), `'use strict';\n${modules.join('\n')}\n`);
  written += modules.length;
}));
process.stdout.write(`precompiled ${written} response validators into ${relative(root, responseValidatorsDir)}${left.length ? ` (compiled where used: ${left.join(', ')})` : ''}\n`);
