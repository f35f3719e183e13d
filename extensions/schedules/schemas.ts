// The JSON Schemas of this extension's bodies. A create and an update take the same fields
// (schedule-fields.json): a create requires name (and action or actions, which the service checks), an
// update any one of them. The same two schemas are described to GET /api/openapi.json by
// schedule-create.json and schedule-update.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExtensionContext } from '../../sdk/extension.js';

export const schemaPath = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);

let cached: { create: object; update: object } | undefined;

export function scheduleSchemas(ctx: ExtensionContext): { create: object; update: object } {
  if (cached) return cached;
  const fields = JSON.parse(readFileSync(schemaPath(ctx, 'schedule-fields.json'), 'utf8')) as Record<string, unknown>;
  return (cached = { create: { ...fields, required: ['name'] }, update: { ...fields, minProperties: 1 } });
}
