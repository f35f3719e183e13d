// POST /api/selftest/run: the server's own checks against itself, one run at a time (instance owner).
// The kernel checks what is its own (unit.ts: its database, the audit chain, each extension's start and
// health); the end-to-end checks are the extensions' that declare `self_checks` (SELFTEST_ROUTE), each
// given the server's address and an owner key made for the run.
import { RoostError } from '../../protocol/errors.js';
import { SELFTEST_ROUTE } from '../../protocol/messages.js';
import { timedCheck as timed, type SelftestCheck as CheckResult, type SelftestRequest } from '../../protocol/selftest.js';
import { DEFAULT_TENANT } from '../auth/keys.js';
import type { Kernel } from '../kernel.js';
import { askExtension, unitChecks } from './unit.js';

/** What this module uses of the kernel. */
export type SelftestDeps = Pick<Kernel, 'audit' | 'config' | 'db' | 'keys' | 'registry'>;

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

/** How long an extension's end-to-end checks may take (each of its waits is bounded on its side). */
const SELF_CHECKS_TIMEOUT_MS = 300_000;

/** Where the self-test reaches this server: its bind address (loopback for a wildcard bind) and `port`. */
export function selfUrl(host: string, port: number): string {
  const address = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' || host === '[::]' ? '::1' : host;
  return `http://${address.includes(':') && !address.startsWith('[') ? `[${address}]` : address}:${port}`;
}

let running = false;

/** `base`: this server's own URL, where the end-to-end checks reach it (selfUrl). */
export async function runSelftest(k: SelftestDeps, scope: SelftestScope, base: string): Promise<SelftestReport> {
  if (running) throw new RoostError('CONFLICT', 'a self-test is running; one runs at a time: try again when it has finished');
  running = true;
  const startedAt = new Date();
  try {
    const checks = [
      ...(scope === 'e2e' ? [] : await unitChecks(k)),
      ...(scope === 'unit' ? [] : await extensionChecks(k, base)),
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

async function extensionChecks(k: SelftestDeps, base: string): Promise<CheckResult[]> {
  const checking = k.registry.list().filter((ext) => ext.state !== 'unloaded' && ext.manifest.server?.selfChecks);
  if (checking.length === 0) return [];
  const { key, record } = await k.keys.create(DEFAULT_TENANT, 'owner', 'selftest', new Date(Date.now() + 10 * 60_000).toISOString());
  try {
    const results: CheckResult[] = [];
    for (const ext of checking) {
      const name = ext.manifest.name;
      const request: SelftestRequest = { base, key };
      let checks: CheckResult[] | undefined;
      const asked = await timed(`extension ${name} runs its end-to-end checks`, 'e2e', async () => {
        const reply = await askExtension(k, name, SELFTEST_ROUTE, request, SELF_CHECKS_TIMEOUT_MS);
        const body = reply.body as { checks?: CheckResult[]; error?: string } | null;
        if (reply.status !== 200 || !Array.isArray(body?.checks)) throw new RoostError('INTERNAL', `it answered ${reply.status ?? 'nothing'}: ${String(body?.error ?? JSON.stringify(body).slice(0, 200))}`);
        checks = body.checks;
        return 'answered';
      });
      // Its own checks when it answered; else one failed check saying why it did not.
      results.push(...(checks ?? [asked]));
    }
    return results;
  } finally {
    await k.keys.revoke(DEFAULT_TENANT, record.keyHash);
  }
}
