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

// One probe at a time per database, and its answer good for PROBE_FRESH_MS: a readiness asked while a
// probe is in flight takes that probe's answer instead of queueing a `select 1` of its own, and one asked
// just after takes the answer just given. Under load a health check then costs no database round trip;
// a lost database shows within a probe's time plus PROBE_FRESH_MS.
const PROBE_FRESH_MS = 250;
const probesInFlight = new WeakMap<ReadinessDeps['db'], Promise<string | undefined>>();
const lastProbes = new WeakMap<ReadinessDeps['db'], { at: number; answer: string | undefined }>();

function probeDatabase(k: ReadinessDeps): Promise<string | undefined> {
  const last = lastProbes.get(k.db);
  if (last && performance.now() - last.at < PROBE_FRESH_MS) return Promise.resolve(last.answer);
  let probe = probesInFlight.get(k.db);
  if (!probe) {
    probe = askDatabase(k).then((answer) => {
      lastProbes.set(k.db, { at: performance.now(), answer });
      return answer;
    }).finally(() => probesInFlight.delete(k.db));
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
