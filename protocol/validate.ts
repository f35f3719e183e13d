// JSON Schema validation with ajv, shared by the kernel, the CLI and extensions. Failures become a
// VALIDATION_ERROR that names the offending field.
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { validationError } from './errors.js';
import { schemasDir } from './paths.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
let shared: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function ajv(): Ajv {
  if (!shared) shared = addFormats(new Ajv({ allErrors: true, strict: false }));
  return shared;
}

/** Compiles a schema object, or a file path (relative paths are under schemas/). Cached by path. */
export function schemaValidator(schema: object | string): ValidateFunction {
  if (typeof schema !== 'string') return ajv().compile(schema);
  const path = isAbsolute(schema) ? schema : join(schemasDir, schema);
  let fn = compiled.get(path);
  if (!fn) {
    fn = ajv().compile(JSON.parse(readFileSync(path, 'utf8')) as object);
    compiled.set(path, fn);
  }
  return fn;
}

/** Validates and returns the value typed, or throws VALIDATION_ERROR naming each bad field. */
export function validate<T>(schema: object | string, value: unknown, what = 'body'): T {
  const fn = schemaValidator(schema);
  if (!fn(value)) throw validationError(describeErrors(fn.errors ?? [], what));
  return value as T;
}

export function describeErrors(errors: ErrorObject[], what: string): string {
  const seen = new Set<string>();
  for (const e of errors) {
    const field = `${what}${e.instancePath.replace(/\//g, '.')}`;
    if (e.keyword === 'required') seen.add(`${field}.${(e.params as { missingProperty: string }).missingProperty} is required`);
    else if (e.keyword === 'additionalProperties') seen.add(`${field}.${(e.params as { additionalProperty: string }).additionalProperty} is not allowed`);
    else seen.add(`${field} ${e.message ?? 'is invalid'}`);
  }
  return [...seen].join('; ');
}

const PROTOCOL_SCHEMA_ID = 'roost/protocol/cli-v1.json';

/** The validator of one cli-v1 message type (schemas/protocol/cli-v1.json), or undefined for unknown types. */
export function messageValidator(type: string): ValidateFunction | undefined {
  const instance = ajv();
  if (!instance.getSchema(PROTOCOL_SCHEMA_ID)) {
    instance.addSchema(JSON.parse(readFileSync(join(schemasDir, 'protocol/cli-v1.json'), 'utf8')) as object);
  }
  if (!/^[a-z_]+$/.test(type)) return undefined;
  try {
    return instance.getSchema(`${PROTOCOL_SCHEMA_ID}#/$defs/${type}`);
  } catch {
    return undefined;
  }
}
