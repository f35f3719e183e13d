// `npm run build`: ajv's standalone code for every JSON Schema file of the package — schemas/ and each
// in-tree extension's schemas/ — at dist/validators/<the file's path>.cjs. protocol/validate.ts loads one
// of these instead of loading ajv and compiling the schema in the process that validates: ajv costs a
// CLI command, a plugin's host, an extension's first request or an agent runner about 0.1 s of CPU
// (see docs/cli.md, Speed). A file whose root is a schema exports its validator as `default`; a file
// holding `$defs` (the protocol) also exports one validator per definition, under its name. A file that
// refers to other files (a response schema the kernel inlines when it reads a manifest) is left to ajv.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { standaloneAjv, standaloneCode } from './standalone-ajv.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Keys of a root that only holds definitions (it is no schema of its own). */
const CONTAINER_KEYS = new Set(['$id', '$schema', '$defs', 'title', 'description']);

async function jsonFiles(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await jsonFiles(path)));
    else if (entry.name.endsWith('.json')) out.push(path);
  }
  return out;
}

const files = [...(await jsonFiles(join(root, 'schemas')))];
for (const home of ['extensions', 'plugins']) {
  for (const entry of await readdir(join(root, home), { withFileTypes: true })) {
    if (entry.isDirectory()) files.push(...(await jsonFiles(join(root, home, entry.name, 'schemas'))));
  }
}

await rm(join(root, 'dist', 'validators'), { recursive: true, force: true });
let built = 0;
const skipped = [];
await Promise.all(files.map(async (file) => {
  const path = relative(root, file);
  const schema = JSON.parse(await readFile(file, 'utf8'));
  const ajv = standaloneAjv();
  const id = schema.$id ?? path;
  let code;
  try {
    ajv.addSchema(schema, schema.$id ? undefined : path);
    const refs = Object.keys(schema).some((key) => !CONTAINER_KEYS.has(key)) ? { default: id } : {};
    for (const name of Object.keys(schema.$defs ?? {})) refs[name] = `${id}#/$defs/${name}`;
    code = standaloneCode(ajv, refs);
  } catch (err) {
    skipped.push(`${path} (${err.message.split('\n')[0]})`);
    return;
  }
  const out = join(root, 'dist', 'validators', path.replace(/\.json$/, '.cjs'));
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, code);
  built++;
}));
process.stdout.write(`precompiled ${built} schema validators into dist/validators${skipped.length ? ` (${skipped.length} refer to other files and are compiled where used)` : ''}\n`);
