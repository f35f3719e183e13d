// The response validators the build made (scripts/build-response-validators.mjs): ajv's standalone code
// for the response schema of every in-tree extension route, one module per extension, each validator
// exported under the hash of its schema. A server that checks responses (ROOST_CHECK_RESPONSES=1, the
// test suite's) then loads neither ajv nor compiles a schema: ~0.1 s of CPU per server. A schema changed
// since the build has another hash, finds nothing here and is compiled where used.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { distDir } from '../../lib/paths.js';

const requireCjs = createRequire(import.meta.url);
/** Each extension's module of validators; null when the build made none for it. */
const modules = new Map<string, Record<string, ValidateFunction> | null>();

/** The export name of a schema's validator: the same for the same JSON text, at build and at run time. */
export function responseSchemaKey(schema: object): string {
  return `v${createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 24)}`;
}

/** Where the build writes them: `<extension>.cjs` each. */
export const responseValidatorsDir = join(distDir, 'validators', 'responses');

/** The precompiled validator of `schema`, a response schema of `owner`'s manifest; undefined without one. */
export function precompiledResponseValidator(owner: string, schema: object): ValidateFunction | undefined {
  let module = modules.get(owner);
  if (module === undefined) {
    try {
      module = requireCjs(join(responseValidatorsDir, `${owner}.cjs`)) as Record<string, ValidateFunction>;
    } catch {
      module = null;
    }
    modules.set(owner, module);
  }
  return module?.[responseSchemaKey(schema)];
}
