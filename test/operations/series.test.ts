// The performance store and its judgement, on constructed series in a real database (SQLite, and
// PostgreSQL with ROOST_TEST_POSTGRES=1): compaction rolls whole hours up once (mean, min, max, count)
// and drops what is past retention, also when two instances compact at once; the latest collection is
// each live instance's; regressions are judged on medians and the MAD, so one outlier neither hides a
// regression nor makes one.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Knex } from 'knex';
import { migrations } from '../../extensions/operations/migrations.js';
import { findRegressions, median } from '../../extensions/operations/regressions.js';
import { SeriesStore, type Series } from '../../extensions/operations/store.js';
import { migrate, openDatabase } from '../../lib/storage.js';
import { sharedPostgres, stopSharedPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const onPostgres = process.env.ROOST_TEST_POSTGRES === '1';
/** A fixed "now" on a whole hour, so the cut-offs fall where the test says. */
const NOW = Date.parse('2026-03-10T12:00:00.000Z');

describe(`the performance store on ${onPostgres ? 'PostgreSQL' : 'SQLite'}`, () => {
  let dir: string;
  let url: string | undefined;
  const open = (): Knex => (url ? openDatabase({ client: 'pg', connection: url, schema: 'ops_series' }) : openDatabase({ client: 'sqlite3', connection: { filename: join(dir, 'operations.sqlite') } }));
  let db: Knex;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'roost-series-'));
    if (onPostgres) {
      url = await (await sharedPostgres()).createDatabase();
      const admin = openDatabase({ client: 'pg', connection: url });
      await admin.raw('CREATE SCHEMA ops_series');
      await admin.destroy();
    }
    db = open();
    await migrate(db, migrations);
  });
  after(async () => {
    await db?.destroy();
    await rm(dir, { recursive: true, force: true });
    await stopSharedPostgres();
  });

  /** One raw sample a minute of `metric` for `instance`, from `from` for `minutes`, each value from `value(i)`. */
  const fill = async (store: SeriesStore, instance: string, metric: string, from: number, minutes: number, value: (i: number) => number) => {
    for (let i = 0; i < minutes; i++) await store.insert(instance, from + i * 60_000, [{ metric, labels: instance ? { instance } : {}, value: value(i) }]);
  };

  it('rolls raw samples older than the raw retention into one point per hour, and deletes what is past retention', async () => {
    const store = new SeriesStore(db);
    // 3 hours of samples ending 50 h ago (past 48 h of raw), an hour ending 1 h ago, and one 40 days ago.
    await fill(store, '', 'kernel.cpu_percent', NOW - 53 * HOUR, 180, (i) => i % 60);
    await fill(store, '', 'kernel.cpu_percent', NOW - 2 * HOUR, 60, () => 7);
    await fill(store, '', 'kernel.cpu_percent', NOW - 40 * DAY, 1, () => 99);
    await db('health_snapshots').insert({ id: 'old', instance: '', at: NOW - 40 * DAY, status: 'healthy', detail: '{}' });

    const result = await store.compact(NOW, 48 * HOUR, 30 * DAY);
    assert.deepEqual(result, { rolled: 181, deleted: 1 }, 'the 3 old hours and the 40-day-old sample rolled; that one deleted');
    const [series] = await store.series({ metric: 'kernel.cpu_percent', from: 0, to: NOW });
    const hourly = series!.points.filter((p) => p.count !== undefined);
    assert.deepEqual(hourly.map((p) => [p.at, p.value, p.min, p.max, p.count]), [0, 1, 2].map((h) => [new Date(NOW - (53 - h) * HOUR).toISOString(), 29.5, 0, 59, 60]));
    assert.equal(series!.points.filter((p) => p.count === undefined).length, 60, 'the recent hour stays raw');
    assert.equal((await db('health_snapshots').where({ id: 'old' })).length, 0);

    // Nothing is rolled twice.
    assert.deepEqual(await store.compact(NOW, 48 * HOUR, 30 * DAY), { rolled: 0, deleted: 0 });
  });

  it('rolls each instance up on its own, once, when two instances compact at the same time', async () => {
    for (const instance of ['a:1', 'b:2']) await fill(new SeriesStore(db), instance, 'ws.clients', NOW - 60 * HOUR, 120, (i) => (instance === 'a:1' ? 1 : 100 + i));
    const other = open();
    const blocker = open();
    try {
      const compact = (on: Knex) => new SeriesStore(on).compact(NOW, 48 * HOUR, 30 * DAY);
      let results;
      if (onPostgres) {
        // Both start while a third holds the rows, so both are under way before either can finish.
        const held = await blocker.transaction();
        await held('perf_samples').where({ resolution: 'raw' }).andWhere('at', '<', NOW - 48 * HOUR).forUpdate();
        const both = Promise.all([compact(db), compact(other)]);
        await waitFor('both compactions to wait on the rows', async () => {
          const [row] = (await blocker.raw("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows as Array<{ n: number }>;
          return Number(row!.n) >= 2 ? true : undefined;
        });
        await held.rollback();
        results = await both;
      } else {
        // A SQLite file has one server: one after the other.
        results = [await compact(db), await compact(other)];
      }
      assert.equal(results[0]!.rolled + results[1]!.rolled, 240, JSON.stringify(results));
    } finally {
      await Promise.all([other.destroy(), blocker.destroy()]);
    }
    const hours = await db('perf_samples').where({ metric: 'ws.clients', resolution: 'hour' }).orderBy(['instance', 'at']);
    assert.deepEqual(hours.map((h) => [h.instance, Number(h.count)]), [['a:1', 60], ['a:1', 60], ['b:2', 60], ['b:2', 60]]);
    const series = await new SeriesStore(db).series({ metric: 'ws.clients', from: 0, to: NOW, labels: { instance: 'b:2' } });
    assert.deepEqual(series[0]!.points.map((p) => p.value), [129.5, 189.5]);
  });

  it('gives the latest collection of each live instance, not of the newest alone', async () => {
    const store = new SeriesStore(db);
    await store.insert('a:1', NOW - 30_000, [{ metric: 'kernel.memory_bytes', labels: { instance: 'a:1' }, value: 1 }]);
    await store.insert('b:2', NOW - 10_000, [{ metric: 'kernel.memory_bytes', labels: { instance: 'b:2' }, value: 2 }]);
    await store.insert('gone:3', NOW - HOUR, [{ metric: 'kernel.memory_bytes', labels: { instance: 'gone:3' }, value: 3 }]);
    const latest = await store.latest(3 * 60_000);
    assert.deepEqual(latest.map((c) => [c.instance, c.at, c.samples.map((s) => s.value)]), [['b:2', NOW - 10_000, [2]], ['a:1', NOW - 30_000, [1]]]);
  });
});

describe('regressions on a constructed series', () => {
  const at = (minute: number) => new Date(NOW + minute * 60_000).toISOString();
  const series = (values: number[], metric = 'http.latency_p95_ms'): Series => ({ metric, labels: { route: 'GET /x', owner: 'x' }, points: values.map((value, i) => ({ at: at(i), value })) });
  const options = { k: 3, minChange: 0.2, minBaseline: 5 };
  const baseline = [10, 11, 9, 10, 12, 10, 9, 11, 10, 10];

  it('finds a rise of the recent median beyond the robust threshold, naming both windows', () => {
    const [found] = findRegressions([series([...baseline, 30, 31, 29])], { ...options, recentCount: 3 });
    assert.ok(found);
    assert.deepEqual(found.recent, { from: at(10), to: at(12), points: 3, median: 30 });
    assert.deepEqual([found.baseline.from, found.baseline.to, found.baseline.points, found.baseline.median], [at(0), at(9), 10, 10]);
    assert.equal(found.baseline.mad, median(baseline.map((v) => Math.abs(v - 10))) * 1.4826);
    assert.equal(found.threshold, 10 + 3 * found.baseline.mad);
    assert.equal(found.change, 2);
  });

  it('is not blinded by an outlier in the baseline (a mean and standard deviation would be)', () => {
    const withOutlier = [...baseline.slice(0, 9), 2_000];
    const values = [...withOutlier, 30, 31, 29];
    const [found] = findRegressions([series(values)], { ...options, recentCount: 3 });
    assert.ok(found, 'the median and MAD barely move');
    assert.equal(found.baseline.median, 10);
    const mean = withOutlier.reduce((a, b) => a + b, 0) / withOutlier.length;
    const sd = Math.sqrt(withOutlier.reduce((a, b) => a + (b - mean) ** 2, 0) / withOutlier.length);
    assert.ok(30 < mean + 3 * sd, 'whereas mean + 3 sd would let 30 through');
  });

  it('makes no regression of one spike in the recent window, nor of a metric where higher is better', () => {
    assert.deepEqual(findRegressions([series([...baseline, 11, 500, 10])], { ...options, recentCount: 3 }), []);
    assert.deepEqual(findRegressions([series([...baseline, 30, 31, 29], 'http.request_rate')], { ...options, recentCount: 3 }), []);
  });

  it('judges a time window too, and leaves alone a series with too short a baseline', () => {
    const values = [...baseline, 30, 31, 29];
    const [found] = findRegressions([series(values)], { ...options, recentFrom: Date.parse(at(10)) });
    assert.equal(found?.recent.points, 3);
    assert.deepEqual(findRegressions([series([10, 10, 30])], { ...options, recentCount: 1 }), []);
  });
});
