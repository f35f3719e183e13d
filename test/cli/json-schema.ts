// Validates roost --json documents against schemas/cli/<command>.json with ajv, the way a consumer would.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { repoRoot } from '../helpers/paths.js';

const ajv = new Ajv({ allErrors: true, strict: true });
const validators = new Map<string, ValidateFunction>();

/** Asserts that `doc` is one valid document of schemas/cli/<schema>.json; returns it for chaining. */
export function assertSchema(schema: string, doc: unknown): any {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(JSON.parse(readFileSync(join(repoRoot, 'schemas/cli', `${schema}.json`), 'utf8')) as object);
    validators.set(schema, validate);
  }
  assert.ok(doc !== undefined, `expected one JSON document for ${schema}`);
  assert.ok(validate(doc), `${schema}.json: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(doc, null, 2)}`);
  return doc;
}
