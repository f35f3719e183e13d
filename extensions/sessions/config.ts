// Defaults and limits of sessions. Per-session overrides arrive in POST /api/sessions (documented in
// docs/sessions.md); the instance-wide parts come from the kernel's init config.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtensionContext } from '../../sdk/extension.js';
import { integerSetting } from '../../sdk/settings.js';
import { OPERATIONAL_MODES, type OperationalMode } from './policy.js';

export const DEFAULTS = {
  timeoutMinutes: 30,
  turnsPerContext: 8,
  approvalTimeoutSeconds: 60,
  /** Auto-resume waits 5, 15, 45, then every 60 of these (a minute unless a session says otherwise). */
  resumeUnitMs: 60_000,
};

export const RESUME_STEPS = [5, 15, 45, 60];
export const MAX_EXTENSION_MINUTES = 120;
/** Output tokens a model may spend on one turn. */
export const MAX_TOKENS = 8_192;
/** A runner that dies this many times within the window puts its session in `error`. */
export const CRASH_BUDGET = 3;
export const CRASH_WINDOW_MS = 60_000;

export function resumeDelayMs(attempt: number, unitMs: number): number {
  return RESUME_STEPS[Math.min(Math.max(attempt, 1), RESUME_STEPS.length) - 1]! * unitMs;
}

export interface InstanceConfig {
  serverUrl: string;
  protectedFiles: string[];
  dataDir: string;
  operationalMode: OperationalMode;
  pluginDir: string;
  /** How often this instance looks for live sessions nobody holds any more (the server's ROOST_LEADER_RETRY_MS). */
  takeoverMs: number;
  /** The most spare runners kept warm (ROOST_EXT_SESSIONS_WARM_RUNNERS; runner-pool.ts); 0: none, each session spawns its own. */
  warmRunners: number;
}

export function instanceConfig(ctx: ExtensionContext): InstanceConfig {
  const c = ctx.init.config ?? {};
  const mode = OPERATIONAL_MODES.includes(c.operationalMode as OperationalMode) ? (c.operationalMode as OperationalMode) : 'normal';
  return {
    serverUrl: typeof c.serverUrl === 'string' ? c.serverUrl : 'http://127.0.0.1:3000',
    protectedFiles: Array.isArray(c.protectedFiles) ? c.protectedFiles.map(String) : ['package.json', 'schema.ts', '.env'],
    dataDir: typeof c.dataDir === 'string' ? c.dataDir : join(tmpdir(), 'roost-sessions'),
    operationalMode: mode,
    pluginDir: ctx.init.plugin.dir,
    takeoverMs: typeof c.takeoverMs === 'number' && c.takeoverMs > 0 ? c.takeoverMs : 10_000,
    warmRunners: integerSetting(ctx, 'WARM_RUNNERS', 5, 0, 32),
  };
}
