// `npm run build`: ajv's standalone code for the schemas a short-lived process validates with, at
// dist/validators/<schema path>.cjs. protocol/validate.ts loads one of these instead of loading ajv and
// compiling the schema on every run: ajv costs a CLI command or a plugin's host more than the rest of its
// start-up (see docs/cli.md, Speed). A schema file holding `$defs` (the protocol) exports one
// validator per definition, under the definition's name; any other exports its validator as `default`.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { Ajv } = require('ajv');
const addFormats = require('ajv-formats');
const standaloneCode = require('ajv/dist/standalone').default;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Schemas under schemas/ that get a precompiled validator. */
const PRECOMPILED = ['protocol/cli-v1.json', 'plugin-registry.json', 'lanes.json'];

for (const path of PRECOMPILED) {
  const schema = JSON.parse(await readFile(join(root, 'schemas', path), 'utf8'));
  // The same options as protocol/validate.ts, so a precompiled validator answers as a compiled one would.
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false, code: { source: true } }));
  const id = schema.$id ?? path;
  ajv.addSchema(schema, schema.$id ? undefined : path);
  const refs = schema.$defs
    ? Object.fromEntries(Object.keys(schema.$defs).map((name) => [name, `${id}#/$defs/${name}`]))
    : { default: id };
  const code = standaloneCode(ajv, refs);
  const out = join(root, 'dist', 'validators', path.replace(/\.json$/, '.cjs'));
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, code);
}
