// The self-test's unit checks: the stores are whole, the audit chain holds, and every extension that is
// loaded starts and answers a message round trip.
import { RoostError } from '../../protocol/errors.js';
import { openDatabase } from '../../protocol/storage.js';
import type { Kernel } from '../kernel.js';
import { sqliteSizes } from '../metrics.js';
import { isPostgres } from '../storage/provision.js';
import { timed, type CheckResult } from './report.js';

const SELFTEST_AUTH = { tenantId: 'default', role: 'owner', actor: 'kernel:selftest' };

export async function unitChecks(k: Kernel): Promise<CheckResult[]> {
  const results = [
    await timed('kernel database answers and is intact', 'unit', () => kernelDatabase(k)),
    await timed('audit chain verifies against its checkpoint', 'unit', async () => {
      const report = await k.audit.verify();
      if (!report.valid) throw new RoostError('INTERNAL', `the chain is broken at ${report.brokenAt}: ${report.reason}`);
      return `${report.checked} entries chained`;
    }),
  ];
  for (const ext of k.registry.list()) {
    const name = ext.manifest.name;
    results.push(await timed(`extension ${name} starts and answers`, 'unit', async () => {
      if (ext.state === 'unloaded') return { skipped: 'unloaded' };
      const started = performance.now();
      // A route nobody declared: the extension's frame answers ROUTE_NOT_FOUND, which proves its loop serves.
      const reply = await k.registry.request<{ status: number }>(name, { type: 'request', method: 'GET', path: '/selftest', route: 'GET /selftest', params: {}, query: {}, auth: SELFTEST_AUTH });
      if (typeof reply?.status !== 'number') throw new RoostError('INTERNAL', `answered ${JSON.stringify(reply).slice(0, 200)} instead of a route reply`);
      return `running (pid ${ext.process?.pid ?? '?'}), round trip ${Math.round(performance.now() - started)} ms, ${ext.restarts} restart(s)`;
    }));
  }
  // After the round trips: every loaded extension has started, so each has its database now.
  if (!isPostgres(k.config)) {
    for (const { database } of sqliteSizes(k.config.dataDir).slice(1)) {
      results.push(await timed(`extension database ${database.split('/').at(-1)} is intact`, 'unit', () => sqliteIntact(database)));
    }
  }
  return results;
}

async function kernelDatabase(k: Kernel): Promise<string> {
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
