// A self-test's checks: each named, timed, passed or not, with what it saw (protocol/messages.ts SelftestCheck).
import type { SelftestCheck } from '../../protocol/messages.js';

export type CheckResult = SelftestCheck;
export type Scope = SelftestCheck['scope'];

/** Runs one check: whatever it throws is its failure, in its own words. */
export async function timed(name: string, scope: Scope, check: () => Promise<string | { skipped: string }>): Promise<CheckResult> {
  const started = performance.now();
  const durationMs = () => Math.round((performance.now() - started) * 10) / 10;
  try {
    const outcome = await check();
    return typeof outcome === 'string'
      ? { name, scope, status: 'passed', durationMs: durationMs(), detail: outcome }
      : { name, scope, status: 'skipped', durationMs: durationMs(), detail: outcome.skipped };
  } catch (err) {
    return { name, scope, status: 'failed', durationMs: durationMs(), detail: err instanceof Error ? err.message : String(err) };
  }
}
