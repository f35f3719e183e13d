// The JSON Schemas of this extension's bodies. A create and an update take the same fields
// (schedule-fields.json): a create requires name (and action or actions, which the service checks), an
// update any one of them. The same two schemas are described to GET /api/openapi.json by
// schedule-create.json and schedule-update.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExtensionContext } from '../../sdk/extension.js';

export const schemaPath = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);

type Schemas = { create: object; update: object };

/**
 * Not running state: a pure function of the extension's own folder, memoized by it. The same objects
 * are handed out every time, so ajv compiles each once (it caches by schema object).
 */
const built = new Map<string, Schemas>();

export function scheduleSchemas(ctx: ExtensionContext): Schemas {
  const dir = ctx.init.plugin.dir;
  let schemas = built.get(dir);
  if (!schemas) {
    const fields = JSON.parse(readFileSync(schemaPath(ctx, 'schedule-fields.json'), 'utf8')) as Record<string, unknown>;
    schemas = { create: { ...fields, required: ['name'] }, update: { ...fields, minProperties: 1 } };
    built.set(dir, schemas);
  }
  return schemas;
}
