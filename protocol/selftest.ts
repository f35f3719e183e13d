// The self-test's request body and its checks (SELFTEST_ROUTE in messages.ts), and the one way a check
// is run and reported: the kernel's own checks and an extension's end-to-end ones alike.

export interface SelftestRequest {
  /** Where this server listens (its bind address; loopback for a wildcard bind). */
  base: string;
  /** An owner API key of the default tenant made for this run, revoked when the run ends. */
  key: string;
}

/** One check of a self-test, named, timed, passed or not, with what it saw. */
export interface SelftestCheck {
  name: string;
  scope: 'unit' | 'e2e';
  status: 'passed' | 'failed' | 'skipped';
  durationMs: number;
  detail: string;
}

/** Runs one check: whatever it throws is its failure, in its own words. */
export async function timedCheck(name: string, scope: SelftestCheck['scope'], check: () => Promise<string | { skipped: string }>): Promise<SelftestCheck> {
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
