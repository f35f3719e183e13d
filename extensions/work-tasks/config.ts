// The extension's settings (ROOST_EXT_WORK_TASKS_*, docs/work-tasks.md).
import type { ExtensionContext } from '../../sdk/extension.js';
import { integerSetting, stringSetting } from '../../sdk/settings.js';

export const MAX_ITERATIONS = 3;

export interface Config {
  lockTtlMs: number;
  scanIntervalMs: number;
  validationTimeoutMs: number;
  sessionTimeoutMinutes: number;
  protectedFiles: string[];
}

export function readConfig(ctx: ExtensionContext): Config {
  const protectedFiles = stringSetting(ctx, 'PROTECTED_FILES') ?? 'package.json,schema.ts,.env';
  return {
    lockTtlMs: integerSetting(ctx, 'LOCK_TTL_SECONDS', 60, 2, 3600) * 1000,
    scanIntervalMs: integerSetting(ctx, 'SCAN_INTERVAL_MS', 2000, 100, 60_000),
    validationTimeoutMs: integerSetting(ctx, 'VALIDATION_TIMEOUT_SECONDS', 600, 1, 7200) * 1000,
    sessionTimeoutMinutes: integerSetting(ctx, 'SESSION_TIMEOUT_MINUTES', 30, 1, 1440),
    protectedFiles: protectedFiles.split(',').map((f) => f.trim().toLowerCase()).filter(Boolean),
  };
}
