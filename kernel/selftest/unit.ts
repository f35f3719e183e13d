// The self-test's unit checks: the stores are whole, the audit chain holds, and every extension that is
// loaded starts and answers its health request (HEALTH_ROUTE: the TypeScript frame checks its own store —
// a query and its migrations — on SQLite and on PostgreSQL alike); then each extension's SQLite file
// passes quick_check.
import { decodeAttachment } from '../../protocol/framing.js';
import { RoostError } from '../../protocol/errors.js';
import { HEALTH_ROUTE } from '../../protocol/messages.js';
import { timedCheck as timed, type SelftestCheck as CheckResult } from '../../protocol/selftest.js';
import { openDatabase } from '../../lib/storage.js';
import type { Extension } from '../host/registry.js';
import type { Kernel } from '../kernel.js';
import { sqliteSizes } from '../metrics.js';
import { isPostgres } from '../storage/provision.js';

/** What this module uses of the kernel. */
export type UnitCheckDeps = Pick<Kernel, 'audit' | 'config' | 'db' | 'registry'>;

const SELFTEST_AUTH = { tenantId: 'default', role: 'owner', actor: 'kernel:selftest' };
/** How many extensions the health checks start and ask at once. */
const HEALTH_CONCURRENCY = 4;

export async function unitChecks(k: UnitCheckDeps): Promise<CheckResult[]> {
  const results = [
    await timed('kernel database answers and is intact', 'unit', () => kernelDatabase(k)),
    await timed('audit chain verifies against its checkpoint', 'unit', async () => {
      const report = await k.audit.verify();
      if (!report.valid) throw new RoostError('INTERNAL', `the chain is broken at ${report.brokenAt}: ${report.reason}`);
      return `${report.checked} entries chained`;
    }),
  ];
  // A few at a time (the host already starts eager ones side by side): one after another was minutes on a
  // busy machine, most of it each start waiting on its own process. Reported in the registry's order.
  const extensions = k.registry.list();
  const health: CheckResult[] = new Array(extensions.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < extensions.length; i = next++) {
      const ext = extensions[i]!;
      health[i] = await timed(`extension ${ext.manifest.name} starts and answers`, 'unit', () => extensionHealth(k, ext));
    }
  };
  await Promise.all(Array.from({ length: HEALTH_CONCURRENCY }, worker));
  results.push(...health);
  // After the round trips: every loaded extension has started, so each has its database now.
  if (!isPostgres(k.config)) {
    for (const { database } of sqliteSizes(k.config.dataDir).slice(1)) {
      results.push(await timed(`extension database ${database.split('/').at(-1)} is intact`, 'unit', () => sqliteIntact(database)));
    }
  }
  return results;
}

/** Sends an extension the self-test's request on one of the protocol's own routes, as the instance owner. */
export async function askExtension(k: UnitCheckDeps, name: string, route: string, body?: unknown, timeoutMs?: number): Promise<{ status?: number; body: unknown }> {
  const [method, path] = route.split(' ');
  const reply = await k.registry.request<{ status?: number; body?: unknown; attachment?: Buffer; encoding?: 'json' | 'text' } | null>(name, { type: 'request', method, path, route, params: {}, query: {}, body, auth: SELFTEST_AUTH }, timeoutMs ? { timeoutMs } : {});
  return { status: reply?.status, body: reply?.attachment ? decodeAttachment(reply.attachment, reply.encoding ?? 'json') : reply?.body ?? null };
}

/**
 * Starts the extension if need be and judges its answer to the health request: 200 `ok` passes; 503 (or
 * anything else) fails with what it said. An extension not built on the TypeScript frame may not know the
 * route: its 404 ROUTE_NOT_FOUND still proves its loop serves, and says it has no health check of its own.
 */
async function extensionHealth(k: UnitCheckDeps, ext: Extension): Promise<string | { skipped: string }> {
  if (ext.state === 'unloaded') return { skipped: 'unloaded' };
  const started = performance.now();
  const reply = await askExtension(k, ext.manifest.name, HEALTH_ROUTE);
  const body = reply.body as Record<string, any> | null;
  const how = `pid ${ext.process?.pid ?? '?'}, round trip ${Math.round(performance.now() - started)} ms, ${ext.restarts} restart(s)`;
  if (reply.status === 200 && body?.status === 'ok') {
    const store = body.store ? `store answers (${body.store.client}, ${body.store.migrations} migrations)` : 'no store';
    return `healthy: ${store}; ${how}`;
  }
  if (reply.status === 404 && body?.code === 'ROUTE_NOT_FOUND') return `answers (it has no health check of its own); ${how}`;
  throw new RoostError('INTERNAL', `unhealthy: ${typeof reply.status === 'number' ? `${reply.status} ` : ''}${String(body?.error ?? JSON.stringify(reply).slice(0, 200))}`);
}

async function kernelDatabase(k: UnitCheckDeps): Promise<string> {
  if (isPostgres(k.config)) {
    const { rows } = await k.db.raw<{ rows: Array<{ n: number }> }>("SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema()");
    return `PostgreSQL answers; ${rows[0]?.n} kernel tables`;
  }
  const rows = (await k.db.raw('PRAGMA integrity_check')) as Array<{ integrity_check: string }>;
  if (rows[0]?.integrity_check !== 'ok') throw new RoostError('INTERNAL', `integrity_check: ${rows.map((r) => r.integrity_check).join('; ').slice(0, 300)}`);
  return 'integrity_check ok';
}

async function sqliteIntact(file: string): Promise<string> {
  const db = openDatabase({ client: 'sqlite3', connection: { filename: file } });
  try {
    const rows = (await db.raw('PRAGMA quick_check')) as Array<{ quick_check: string }>;
    if (rows[0]?.quick_check !== 'ok') throw new RoostError('INTERNAL', `quick_check: ${rows.map((r) => r.quick_check).join('; ').slice(0, 300)}`);
    return 'quick_check ok';
  } finally {
    await db.destroy();
  }
}
