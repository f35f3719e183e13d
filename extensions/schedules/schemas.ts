// The JSON Schemas of this extension's bodies; an update takes the fields of a create, none required.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExtensionContext } from '../_shared/extension.js';

export const schemaPath = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);

let cached: { create: object; update: object } | undefined;

export function scheduleSchemas(ctx: ExtensionContext): { create: object; update: object } {
  if (cached) return cached;
  const create = JSON.parse(readFileSync(schemaPath(ctx, 'schedule.json'), 'utf8')) as Record<string, unknown>;
  return (cached = { create, update: { ...create, required: [], minProperties: 1 } });
}
