// What the three health routes answer, made in one place for the two fronts that serve them: koa's
// router (system.ts) and the fast front (http/fast-front.ts). Each answer is a JSON document as it is sent.
import type { Kernel } from '../../kernel.js';
import { readiness } from '../../readiness.js';
import { storeInfo } from '../../storage/store-info.js';
import { ExtensionHealth } from './extension-health.js';

/** What this module uses of the kernel. */
export type HealthDeps = Pick<Kernel, 'db' | 'registry' | 'schemaVersion' | 'startedAt' | 'version'>;

export interface HealthAnswer {
  status: number;
  /** A JSON document. */
  body: string | Buffer;
  /** Seconds, for a 503 that will pass. */
  retryAfter?: number;
}

const READY_RETRY_AFTER_SECONDS = 2;
const LIVE: HealthAnswer = { status: 200, body: JSON.stringify({ status: 'live' }) };
const READY: HealthAnswer = { status: 200, body: JSON.stringify({ status: 'ready' }) };

/** Each health path and its answer. */
export type HealthRoutes = ReadonlyMap<string, () => Promise<HealthAnswer>>;

export function healthAnswers(k: HealthDeps): HealthRoutes {
  const extensionHealth = new ExtensionHealth(k.schemaVersion);
  return new Map([
    // Liveness: the process answers.
    ['/health/live', () => Promise.resolve(LIVE)],
    // Readiness: it can serve (see kernel/readiness.ts); for load balancers.
    ['/health/ready', perTurn(async () => {
      const { status, reasons } = await readiness(k);
      return status === 'ready' ? READY : { status: 503, body: JSON.stringify({ status, reasons }), retryAfter: READY_RETRY_AFTER_SECONDS };
    })],
    ['/api/health', perTurn(async () => {
      const [{ status, reasons, databaseError }, store] = await Promise.all([readiness(k), storeInfo(k.db)]);
      const now = {
        status: status === 'ready' ? 'ok' : status,
        ...(reasons.length > 0 ? { reasons } : {}),
        version: k.version,
        uptimeSeconds: Math.round((Date.now() - k.startedAt) / 1000),
        store: { kind: store.kind, version: store.version, reachable: databaseError === undefined },
      };
      // What changes with every turn, then the extensions' part as kept (extension-health.ts); as bytes,
      // so each request of the turn writes it without measuring or encoding it again.
      return { status: 200, body: Buffer.from(JSON.stringify(now).slice(0, -1) + extensionHealth.end(k.registry.list())) };
    })],
  ]);
}

/**
 * The answer made first in a turn of the event loop is every request's of that turn: requests that
 * arrive together (a load balancer's, a monitor's) are answered alike, and whoever asks again is
 * answered from the state as it is then.
 */
function perTurn(make: () => Promise<HealthAnswer>): () => Promise<HealthAnswer> {
  let made: Promise<HealthAnswer> | undefined;
  return () => {
    if (!made) {
      made = make();
      setImmediate(() => (made = undefined));
    }
    return made;
  };
}
