// Limits and knobs. Extensions see no environment of their own, so the two test knobs come through
// `host.secret` (ROOST_SECRET_* names are the ones an extension may read); see docs/notifications.md.
import type { HostClient } from '../_shared/host-client.js';

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
}

export async function loadSettings(host: HostClient): Promise<Settings> {
  const base = Number(await host.secret('ROOST_SECRET_NOTIFICATIONS_RETRY_BASE_MS'));
  const minSeconds = Number(await host.secret('ROOST_SECRET_NOTIFICATIONS_MIN_TIMEOUT_SECONDS'));
  return {
    retryBaseMs: Number.isFinite(base) && base > 0 ? base : 5_000,
    minTimeoutMinutes: Number.isFinite(minSeconds) && minSeconds > 0 ? Math.min(minSeconds / 60, QUESTION_TIMEOUT.minMinutes) : QUESTION_TIMEOUT.minMinutes,
  };
}

/** Exponential backoff after the `attempts`-th failure: base, 2×base, 4×base… capped at an hour. */
export function backoffMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(attempts - 1, 0), MAX_BACKOFF_MS);
}
