// Limits and knobs; the settings are ROOST_EXT_NOTIFICATIONS_* (sdk/settings.ts), see
// docs/notifications.md.
import type { ExtensionContext } from '../../sdk/extension.js';
import { reachPolicy, type ReachPolicy } from '../../sdk/reach.js';
import { numberSetting } from '../../sdk/settings.js';

export const QUESTION_TIMEOUT = { defaultMinutes: 2, minMinutes: 1, maxMinutes: 10 };
/** A delivery is retried this many times in all before it is marked failed. */
export const MAX_ATTEMPTS = 8;
export const MAX_BACKOFF_MS = 60 * 60_000;
/** How long one attempt to reach a webhook or a bridge may take. */
export const ATTEMPT_TIMEOUT_MS = 15_000;

export interface Settings {
  retryBaseMs: number;
  /** The shortest question timeout accepted, in minutes (1, unless lowered for tests). */
  minTimeoutMinutes: number;
  /** Where webhooks may go: the one rule of sdk/reach.ts. */
  reach: ReachPolicy;
}

export function loadSettings(ctx: ExtensionContext): Settings {
  const minSeconds = numberSetting(ctx, 'MIN_TIMEOUT_SECONDS', QUESTION_TIMEOUT.minMinutes * 60, 1, QUESTION_TIMEOUT.minMinutes * 60);
  return {
    retryBaseMs: numberSetting(ctx, 'RETRY_BASE_MS', 5_000, 10, 3_600_000),
    minTimeoutMinutes: minSeconds / 60,
    reach: reachPolicy(ctx),
  };
}

/** Exponential backoff after the `attempts`-th failure: base, 2×base, 4×base… capped at an hour. */
export function backoffMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(attempts - 1, 0), MAX_BACKOFF_MS);
}
