// The performance API: the latest sample, trends, regressions, a report, the metric names, a manual
// collection and the stored health snapshots. Server-wide figures, so only the instance owner reads
// them (as GET /metrics). With instances sharing a PostgreSQL database, the snapshot and the report
// hold every live instance's latest collection, each labelled with its instance.
import { notFound, validationError } from '../../protocol/errors.js';
import type { RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { ok, page, queryString } from '../../sdk/http.js';
import { requireInstanceOwner } from '../../sdk/roles.js';
import type { Collector } from './collector.js';
import { HEALTH_STATUSES, HealthStore, type HealthStatus } from './health.js';
import { duration, instant, labelFilter, metricName, number } from './queries.js';
import { findRegressions, type RegressionOptions } from './regressions.js';
import { METRICS, type Sample } from './sampler.js';
import { SeriesStore, type Collection } from './store.js';

const MAX_TREND_POINTS = 20_000;
/** An instance whose latest collection is older than this many intervals behind the newest one is not live. */
const LIVE_INTERVALS = 3;

const unitOf = (s: Sample) => ({ ...s, unit: METRICS[s.metric]?.unit ?? '' });
const iso = (at: number) => new Date(at).toISOString();
const instanceOf = (c: Collection) => (c.instance === '' ? null : c.instance);

const owner = (req: RouteRequest) => requireInstanceOwner(req.auth, 'read the server\'s performance figures');
/** The latest collection of each live instance. */
const latest = (store: SeriesStore, collector: Collector) => store.latest(LIVE_INTERVALS * collector.settings.intervalMs);

async function regressions(req: RouteRequest, store: SeriesStore) {
  const now = Date.now();
  const windowMs = duration(req.query, 'window', 15 * 60_000);
  const baselineMs = duration(req.query, 'baseline', 24 * 3_600_000);
  const recent = req.query.recent === undefined ? undefined : number(req.query, 'recent', 1, 1, 1_000);
  const options: RegressionOptions = {
    ...(recent === undefined ? { recentFrom: now - windowMs } : { recentCount: recent }),
    k: number(req.query, 'k', 3, 0, 100),
    minChange: number(req.query, 'minChange', 0.2, 0, 100),
    minBaseline: number(req.query, 'minBaseline', 5, 1, 10_000),
  };
  const from = now - windowMs - baselineMs;
  const series = await store.series({ from, to: now, ...withLabels(req.query) });
  return {
    window: recent === undefined ? { from: iso(now - windowMs), to: iso(now) } : { lastSamples: recent },
    baseline: { from: iso(from), to: iso(now - (recent === undefined ? windowMs : 0)) },
    options: { k: options.k, minChange: options.minChange, minBaseline: options.minBaseline },
    regressions: findRegressions(series, options),
  };
}

export const routes: Record<string, RouteHandler<Collector>> = {
  async 'GET /api/performance/snapshot'(req, ctx, collector) {
    owner(req);
    const metric = metricName(req.query, false);
    const collections = await latest(new SeriesStore(ctx.db), collector);
    return ok({
      collectedAt: collections[0] ? iso(collections[0].at) : null,
      instances: collections.map((c) => ({ instance: instanceOf(c), collectedAt: iso(c.at) })),
      samples: collections.flatMap((c) => c.samples).filter((s) => !metric || s.metric === metric).map(unitOf),
    });
  },

  async 'GET /api/performance/trends'(req, ctx) {
    owner(req);
    const metric = metricName(req.query, true)!;
    const to = instant(req.query, 'to', Date.now());
    const from = instant(req.query, 'from', to - 24 * 3_600_000);
    if (from >= to) throw validationError('query.from must be before query.to');
    const series = await new SeriesStore(ctx.db).series({ metric, from, to, ...withLabels(req.query) });
    const points = series.reduce((sum, s) => sum + s.points.length, 0);
    if (points > MAX_TREND_POINTS) throw validationError(`that asks for ${points} points (at most ${MAX_TREND_POINTS}): narrow from/to or filter by route, owner, extension, database`);
    return ok({ metric, unit: METRICS[metric]!.unit, from: iso(from), to: iso(to), series });
  },

  async 'GET /api/performance/regressions'(req, ctx) {
    owner(req);
    return ok(await regressions(req, new SeriesStore(ctx.db)));
  },

  async 'GET /api/performance/report'(req, ctx, collector) {
    owner(req);
    const store = new SeriesStore(ctx.db);
    const collections = await latest(store, collector);
    const samples = collections.flatMap((c) => c.samples);
    const health = await new HealthStore(ctx.db).latest(collections.map((c) => c.instance));
    const top = (metric: string, n: number) => samples.filter((s) => s.metric === metric && s.labels.route !== '*').sort((a, b) => b.value - a.value).slice(0, n).map(unitOf);
    const of = (metric: string, within: Sample[] = samples) => within.filter((s) => s.metric === metric).map(unitOf);
    return ok({
      collectedAt: collections[0] ? iso(collections[0].at) : null,
      instances: collections.map((c) => ({
        instance: instanceOf(c),
        collectedAt: iso(c.at),
        kernel: { cpuPercent: of('kernel.cpu_percent', c.samples)[0]?.value ?? null, memoryBytes: of('kernel.memory_bytes', c.samples)[0]?.value ?? null, eventLoopDelayP99Ms: of('kernel.event_loop_delay_p99_ms', c.samples)[0]?.value ?? null },
        wsClients: of('ws.clients', c.samples)[0]?.value ?? null,
        health: health.find((h) => h.instance === instanceOf(c)) ?? null,
      })),
      slowestRoutes: top('http.latency_p95_ms', 10),
      busiestRoutes: top('http.request_rate', 10),
      failingRoutes: top('http.error_rate', 10).filter((s) => s.value > 0),
      owners: samples.filter((s) => s.labels.route === '*').map(unitOf),
      extensions: [...of('extension.cpu_percent'), ...of('extension.memory_bytes'), ...of('extension.restarts')],
      databases: of('database.size_bytes'),
      queues: [...of('queue.depth'), ...of('kernel.start_waiting_requests'), ...of('kernel.pending_extension_requests'), ...of('kernel.bus_backlog')],
      regressions: (await regressions(req, store)).regressions,
    });
  },

  async 'GET /api/performance/metrics'(req, ctx) {
    owner(req);
    const recorded = new Set(await new SeriesStore(ctx.db).metricNames());
    return ok({ metrics: Object.entries(METRICS).map(([name, meta]) => ({ name, ...meta, recorded: recorded.has(name) })) });
  },

  async 'POST /api/performance/collect'(req, _ctx, collector) {
    owner(req);
    const { at, samples, health } = await collector.collect(true);
    return ok({ collectedAt: iso(at), samples: samples.length, health: health ?? null });
  },

  async 'GET /api/performance/health'(req, ctx) {
    owner(req);
    const status = queryString(req.query, 'status');
    if (status !== undefined && !HEALTH_STATUSES.includes(status as HealthStatus)) throw validationError(`query.status must be one of ${HEALTH_STATUSES.join(', ')}, got "${status}"`);
    const instance = queryString(req.query, 'instance');
    const to = instant(req.query, 'to', Date.now());
    const from = instant(req.query, 'from', 0);
    if (from >= to) throw validationError('query.from must be before query.to');
    const { limit, offset } = page(req.query);
    return ok(await new HealthStore(ctx.db).list({ from, to, limit, offset, ...(status ? { status: status as HealthStatus } : {}), ...(instance !== undefined ? { instance } : {}) }));
  },

  async 'GET /api/performance/health/:id'(req, ctx) {
    owner(req);
    const snapshot = await new HealthStore(ctx.db).get(req.params.id!);
    if (!snapshot) throw notFound(`health snapshot ${req.params.id}`);
    return ok(snapshot);
  },
};

/** The query's label filter as a series option, absent when the query names no label. */
function withLabels(query: Parameters<typeof labelFilter>[0]): { labels?: Record<string, string> } {
  const labels = labelFilter(query);
  return labels ? { labels } : {};
}
