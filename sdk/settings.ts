// An extension's settings: the server's environment variables ROOST_EXT_<NAME>_<SETTING>, handed over in
// init as `settings` (kernel/host/extension-settings.ts). A bad value stops the start with a clear error.
import { validationError } from '../protocol/errors.js';
import type { ExtensionContext } from './extension.js';

function raw(ctx: ExtensionContext, name: string): string | undefined {
  const settings = (ctx.init.config?.settings ?? {}) as Record<string, string>;
  const value = settings[name];
  return value === undefined || value === '' ? undefined : value;
}

const variable = (ctx: ExtensionContext, name: string) => `ROOST_EXT_${ctx.init.plugin.name.toUpperCase().replace(/-/g, '_')}_${name}`;

export function numberSetting(ctx: ExtensionContext, name: string, fallback: number, min: number, max: number): number {
  const value = raw(ctx, name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) throw validationError(`${variable(ctx, name)} must be a number from ${min} to ${max}, got "${value}"`);
  return n;
}

export function integerSetting(ctx: ExtensionContext, name: string, fallback: number, min: number, max: number): number {
  const n = numberSetting(ctx, name, fallback, min, max);
  if (!Number.isInteger(n)) throw validationError(`${variable(ctx, name)} must be an integer from ${min} to ${max}, got "${raw(ctx, name)}"`);
  return n;
}

export function stringSetting(ctx: ExtensionContext, name: string): string | undefined {
  return raw(ctx, name);
}
