// JSON Schema validation with ajv, shared by the kernel, the CLI and extensions. Failures become a
// VALIDATION_ERROR that names the offending field.
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative } from 'node:path';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { validationError } from './errors.js';
import { distDir, packageRoot, schemasDir } from '../lib/paths.js';

let shared: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();
const requireCjs = createRequire(import.meta.url);

/**
 * ajv loads on the first validation, not on import: every extension and most CLI commands import this
 * module, yet few validate anything while starting, and loading ajv with its formats costs about
 * 0.1 s of CPU per process (see docs/performance.md).
 */
function ajv(): Ajv {
  if (!shared) {
    const { Ajv: AjvClass } = requireCjs('ajv') as typeof import('ajv');
    const addFormats = requireCjs('ajv-formats') as (instance: Ajv) => Ajv;
    shared = addFormats(new AjvClass({ allErrors: true, strict: false }));
    // OpenAPI 3.1's spelling (JSON Schema 2019-09) of draft-07's property `dependencies`.
    shared.addKeyword(requireCjs('ajv/dist/vocabularies/validation/dependentRequired.js').default);
  }
  return shared;
}

/**
 * The validators scripts/build-validators.mjs generated for a schema file (ajv standalone code), or
 * undefined when the build made none or the schema changed since: then ajv compiles it here.
 */
function precompiled(path: string): Record<string, ValidateFunction> | undefined {
  const inPackage = relative(packageRoot, path);
  if (inPackage.startsWith('..') || inPackage.startsWith('dist')) return undefined;
  const file = join(distDir, 'validators', inPackage.replace(/\.json$/, '.cjs'));
  const built = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined || built < (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Infinity)) return undefined;
  return requireCjs(file) as Record<string, ValidateFunction>;
}

/** Compiles a schema object, or a file path (relative paths are under schemas/). Cached by path. */
export function schemaValidator(schema: object | string): ValidateFunction {
  if (typeof schema !== 'string') return ajv().compile(schema);
  const path = isAbsolute(schema) ? schema : join(schemasDir, schema);
  let fn = compiled.get(path);
  if (!fn) {
    fn = precompiled(path)?.default ?? ajv().compile(JSON.parse(readFileSync(path, 'utf8')) as object);
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
    else if (e.keyword === 'enum') seen.add(`${field} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`);
    else seen.add(`${field} ${e.message ?? 'is invalid'}`);
  }
  return [...seen].join('; ');
}

const PROTOCOL_SCHEMA_ID = 'roost/protocol/cli-v1.json';
let protocolValidators: Record<string, ValidateFunction> | null | undefined;

/** The validator of one cli-v1 message type (schemas/protocol/cli-v1.json), or undefined for unknown types. */
export function messageValidator(type: string): ValidateFunction | undefined {
  if (protocolValidators === undefined) protocolValidators = precompiled(join(schemasDir, 'protocol/cli-v1.json')) ?? null;
  if (protocolValidators) return Object.hasOwn(protocolValidators, type) ? protocolValidators[type] : undefined;
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
