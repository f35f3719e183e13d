// Is the server ready to serve? The kernel database answers, every eager extension runs (has sent
// `ready`), and no extension, lazy ones included, has failed, crashed or waits out a fault (its
// database unreachable, its disk full). Load balancers and orchestrators ask /health/ready (503 with
// the reasons while it is not ready); /api/health reports the same status and reasons.
import type { Extension } from './host/registry.js';
import type { Kernel } from './kernel.js';

/** What this module uses of the kernel. */
export type ReadinessDeps = Pick<Kernel, 'db' | 'registry'>;

export type ReadinessStatus = 'ready' | 'starting' | 'degraded' | 'stopping';

export interface Readiness {
  status: ReadinessStatus;
  /** Why the server is not ready; empty when it is. */
  reasons: string[];
  /** Why the kernel database did not answer the probe, when it did not. */
  databaseError?: string;
}

const DB_PROBE_MS = 2_000;

export async function readiness(k: ReadinessDeps): Promise<Readiness> {
  if (k.registry.isClosing) return { status: 'stopping', reasons: ['the server is shutting down'] };
  const reasons: string[] = [];
  let degraded = false;
  const dbError = await probeDatabase(k);
  if (dbError) {
    reasons.push(`kernel database: ${dbError}`);
    degraded = true;
  }
  for (const ext of k.registry.list()) {
    const broken = ext.state === 'failed' || ext.state === 'crashed';
    // A lazy extension that is stopped or starting on demand is as it should be.
    if (!broken && (ext.manifest.server?.activation !== 'eager' || ext.state === 'running' || ext.state === 'unloaded')) continue;
    if (broken) degraded = true;
    reasons.push(`extension ${ext.manifest.name} ${describe(ext)}`);
  }
  const database = dbError ? { databaseError: dbError } : {};
  if (reasons.length === 0) return { status: 'ready', reasons, ...database };
  return { status: degraded ? 'degraded' : 'starting', reasons, ...database };
}

function describe(ext: Extension): string {
  switch (ext.state) {
    case 'failed':
      return `failed: ${ext.lastError ?? 'crash budget spent'}`;
    case 'crashed':
      if (ext.waiting) return `cannot run: ${ext.waiting.reason}; tried ${ext.waiting.tries} time(s), trying again until it can`;
      return `crashed and is restarting (${ext.lastError ?? 'unknown cause'})`;
    case 'starting':
      return 'is starting';
    default:
      return 'is not started yet';
  }
}

// One probe at a time per database: a readiness asked while a probe is in flight takes that probe's
// answer (at most one round trip old) instead of queueing a `select 1` of its own. Under load most
// health checks then cost no database round trip; no answer is ever older than the probe in flight.
const probesInFlight = new WeakMap<ReadinessDeps['db'], Promise<string | undefined>>();

function probeDatabase(k: ReadinessDeps): Promise<string | undefined> {
  let probe = probesInFlight.get(k.db);
  if (!probe) {
    probe = askDatabase(k).finally(() => probesInFlight.delete(k.db));
    probesInFlight.set(k.db, probe);
  }
  return probe;
}

async function askDatabase(k: ReadinessDeps): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`no answer within ${DB_PROBE_MS} ms`), DB_PROBE_MS)));
  try {
    return await Promise.race([k.db.raw('select 1').then(() => undefined, (err: Error) => err.message), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
