// The ajv the build's standalone validators are made with: the options and keywords of protocol/validate.ts,
// so a precompiled validator answers as one compiled at run time would, plus the source the standalone
// code is written from.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Ajv } = require('ajv');
const addFormats = require('ajv-formats');

/** ajv's standalone code of `refs` (export name → schema id) in `ajv`. */
export const standaloneCode = require('ajv/dist/standalone').default;

export function standaloneAjv() {
  const ajv = addFormats(new Ajv({ allErrors: true, strict: false, code: { source: true } }));
  // As protocol/validate.ts: OpenAPI 3.1's dependentRequired beside draft-07.
  ajv.addKeyword(require('ajv/dist/vocabularies/validation/dependentRequired.js').default);
  return ajv;
}
