// POST /api/selftest/run: the server's own checks against itself, one run at a time (instance owner).
import type { Kernel } from '../kernel.js';
import { RoostError } from '../../protocol/errors.js';
import { e2eChecks } from './e2e.js';
import type { CheckResult } from './report.js';
import { unitChecks } from './unit.js';

export type SelftestScope = 'unit' | 'e2e' | 'all';

export interface SelftestReport {
  scope: SelftestScope;
  startedAt: string;
  durationMs: number;
  /** No check failed (skipped ones say why they did not run). */
  passed: boolean;
  counts: { passed: number; failed: number; skipped: number };
  checks: CheckResult[];
}

let running = false;

/** `base`: this server's own URL, where the end-to-end checks reach it (e2e.ts selfUrl). */
export async function runSelftest(k: Kernel, scope: SelftestScope, base: string): Promise<SelftestReport> {
  if (running) throw new RoostError('CONFLICT', 'a self-test is running; one runs at a time: try again when it has finished');
  running = true;
  const startedAt = new Date();
  try {
    const checks = [
      ...(scope === 'e2e' ? [] : await unitChecks(k)),
      ...(scope === 'unit' ? [] : await e2eChecks(k, base)),
    ];
    const count = (status: CheckResult['status']) => checks.filter((c) => c.status === status).length;
    return {
      scope,
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      passed: count('failed') === 0,
      counts: { passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
      checks,
    };
  } finally {
    running = false;
  }
}
