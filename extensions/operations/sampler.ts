// Turns the kernel's cumulative metrics (prom-client's JSON, asked with `system_metrics`) into the
// samples of one interval: request rates, error rates and latency percentiles per route and per
// extension, event-loop delay, CPU and memory of the kernel and of each extension, database sizes,
// WebSocket clients, queue depths. Counters and histograms are cumulative, so each figure is the
// difference from the previous reading; the first reading only yields the gauges.

export interface PromMetric {
  name: string;
  type: string;
  values: Array<{ value: number; labels: Record<string, string | number>; metricName?: string }>;
}

export interface Sample {
  metric: string;
  labels: Record<string, string>;
  value: number;
}

/** What is kept between two readings: every cumulative value by its series key. */
export type Reading = { at: number; values: Map<string, number> };

/** Every metric this extension records, with what it means and whether a higher value is worse. */
export const METRICS: Record<string, { help: string; unit: string; higherIsWorse: boolean }> = {
  'http.request_rate': { help: 'requests answered per second, by route (or * for all routes of an owner) and owner', unit: 'req/s', higherIsWorse: false },
  'http.error_rate': { help: 'share of answers with a 5xx status, by route and owner', unit: 'ratio', higherIsWorse: true },
  'http.latency_p50_ms': { help: 'median time to answer, by route and owner', unit: 'ms', higherIsWorse: true },
  'http.latency_p95_ms': { help: '95th percentile time to answer, by route and owner', unit: 'ms', higherIsWorse: true },
  'http.latency_p99_ms': { help: '99th percentile time to answer, by route and owner', unit: 'ms', higherIsWorse: true },
  'kernel.event_loop_delay_p99_ms': { help: "99th percentile of the kernel's event-loop delay", unit: 'ms', higherIsWorse: true },
  'kernel.cpu_percent': { help: 'CPU used by the kernel process (100 = one core)', unit: '%', higherIsWorse: true },
  'kernel.memory_bytes': { help: 'resident memory of the kernel process', unit: 'bytes', higherIsWorse: true },
  'extension.cpu_percent': { help: 'CPU used by an extension and everything in its sandbox (100 = one core)', unit: '%', higherIsWorse: true },
  'extension.memory_bytes': { help: 'resident memory of an extension and everything in its sandbox', unit: 'bytes', higherIsWorse: true },
  'extension.restarts': { help: 'restarts of an extension after a crash since the server started', unit: 'count', higherIsWorse: true },
  'database.size_bytes': { help: 'size of a database (a SQLite file with its WAL, or the PostgreSQL database)', unit: 'bytes', higherIsWorse: false },
  'ws.clients': { help: 'WebSocket clients connected', unit: 'count', higherIsWorse: false },
  'queue.depth': { help: 'items waiting in a queue an extension reports (queue_depth), by extension and queue', unit: 'count', higherIsWorse: true },
  'kernel.start_waiting_requests': { help: 'requests waiting for an extension to start or restart, by extension (recorded when not 0) and for all (extension *)', unit: 'count', higherIsWorse: true },
  'kernel.pending_extension_requests': { help: 'requests sent to an extension and not answered yet, by extension (recorded when not 0) and for all (extension *)', unit: 'count', higherIsWorse: true },
  'kernel.bus_backlog': { help: 'bus events waiting to be sent to the other instances', unit: 'count', higherIsWorse: true },
};

/** The event-loop delay since the previous sample (kernel/metrics.ts, SAMPLE_EVENT_LOOP_P99). */
const EVENT_LOOP_P99 = 'roost_sample_event_loop_delay_p99_seconds';

const QUANTILES = [['http.latency_p50_ms', 0.5], ['http.latency_p95_ms', 0.95], ['http.latency_p99_ms', 0.99]] as const;

/**
 * The reading the kernel's counters started from: every one at 0 when its process started. The first
 * collection after this extension starts (seconds or minutes after the kernel: activation "deferred")
 * measures from there, so no interval of a server's life goes without rates.
 */
export function kernelStart(metrics: PromMetric[]): Reading | undefined {
  const started = metrics.find((m) => m.name === 'roost_kernel_process_start_time_seconds')?.values[0]?.value;
  return started ? { at: started * 1000, values: new Map() } : undefined;
}

export function derive(previous: Reading | undefined, metrics: PromMetric[], at: number): { samples: Sample[]; reading: Reading } {
  const byName = new Map(metrics.map((m) => [m.name, m]));
  const values = new Map<string, number>();
  const samples: Sample[] = [];
  const seconds = previous ? (at - previous.at) / 1000 : 0;
  /** The growth of a cumulative value since the last reading (undefined on the first one, or after a reset). */
  const delta = (key: string, value: number): number | undefined => {
    values.set(key, value);
    if (!previous || seconds <= 0) return undefined;
    // A series missing last time started since; one that went down was reset (a restart): no figure now.
    const before = previous.values.get(key) ?? 0;
    return value >= before ? value - before : undefined;
  };
  const gauge = (name: string, metric: string, labelOf: (labels: Record<string, string | number>) => Record<string, string>, scale = 1) => {
    for (const v of byName.get(name)?.values ?? []) samples.push({ metric, labels: labelOf(v.labels), value: v.value * scale });
  };

  httpSamples(byName, delta, seconds, samples);
  gauge(EVENT_LOOP_P99, 'kernel.event_loop_delay_p99_ms', () => ({}), 1000);
  gauge('roost_kernel_process_resident_memory_bytes', 'kernel.memory_bytes', () => ({}));
  gauge('roost_extension_resident_memory_bytes', 'extension.memory_bytes', (l) => ({ extension: String(l.extension) }));
  gauge('roost_extension_restarts', 'extension.restarts', (l) => ({ extension: String(l.extension) }));
  gauge('roost_database_size_bytes', 'database.size_bytes', (l) => ({ database: String(l.database) }));
  gauge('roost_ws_clients', 'ws.clients', () => ({}));
  gauge('roost_extension_queue_depth', 'queue.depth', (l) => ({ extension: String(l.extension), queue: String(l.queue) }));
  gauge('roost_bus_backlog', 'kernel.bus_backlog', () => ({}));
  perExtensionTotal(byName.get('roost_extension_start_waiting_requests'), 'kernel.start_waiting_requests', samples);
  perExtensionTotal(byName.get('roost_extension_pending_requests'), 'kernel.pending_extension_requests', samples);
  const cpu = (name: string, metric: string, labelOf: (labels: Record<string, string | number>) => Record<string, string>) => {
    for (const v of byName.get(name)?.values ?? []) {
      const labels = labelOf(v.labels);
      const used = delta(`${name}${JSON.stringify(labels)}`, v.value);
      if (used !== undefined && seconds > 0) samples.push({ metric, labels, value: (used / seconds) * 100 });
    }
  };
  cpu('roost_kernel_process_cpu_seconds_total', 'kernel.cpu_percent', () => ({}));
  cpu('roost_extension_cpu_seconds', 'extension.cpu_percent', (l) => ({ extension: String(l.extension) }));
  return { samples, reading: { at, values } };
}

/** One series for all extensions (extension `*`), always; one per extension only when it is not 0 (most are idle). */
function perExtensionTotal(metric: PromMetric | undefined, name: string, samples: Sample[]): void {
  if (!metric) return;
  let total = 0;
  for (const v of metric.values) {
    total += v.value;
    if (v.value !== 0) samples.push({ metric: name, labels: { extension: String(v.labels.extension) }, value: v.value });
  }
  samples.push({ metric: name, labels: { extension: '*' }, value: total });
}

type Delta = (key: string, value: number) => number | undefined;

interface RouteWindow {
  labels: Record<string, string>;
  count: number;
  errors: number;
  /** Requests of the interval at or under each bucket's upper bound, in bound order. */
  buckets: Array<[number, number]>;
}

/** Request rate, error rate and latency percentiles per route, and for all routes of each owner. */
function httpSamples(byName: Map<string, PromMetric>, delta: Delta, seconds: number, samples: Sample[]): void {
  const windows = new Map<string, RouteWindow>();
  const windowOf = (labels: Record<string, string>) => {
    const key = JSON.stringify(labels);
    let w = windows.get(key);
    if (!w) windows.set(key, (w = { labels, count: 0, errors: 0, buckets: [] }));
    return w;
  };
  const scopes = (l: Record<string, string | number>) => [
    { route: `${l.method} ${l.route}`, owner: String(l.owner) },
    { route: '*', owner: String(l.owner) },
  ];
  for (const v of byName.get('roost_http_requests_total')?.values ?? []) {
    const grown = delta(`requests${JSON.stringify(v.labels)}`, v.value);
    if (grown === undefined) continue;
    for (const labels of scopes(v.labels)) {
      const w = windowOf(labels);
      w.count += grown;
      if (Number(v.labels.status) >= 500) w.errors += grown;
    }
  }
  for (const v of byName.get('roost_http_request_duration_seconds')?.values ?? []) {
    if (v.metricName !== 'roost_http_request_duration_seconds_bucket') continue;
    const grown = delta(`duration${JSON.stringify(v.labels)}`, v.value);
    if (grown === undefined) continue;
    const bound = v.labels.le === '+Inf' ? Infinity : Number(v.labels.le);
    for (const labels of scopes(v.labels)) {
      const w = windowOf(labels);
      const bucket = w.buckets.find(([b]) => b === bound);
      if (bucket) bucket[1] += grown;
      else w.buckets.push([bound, grown]);
    }
  }
  for (const w of windows.values()) {
    if (w.count <= 0 || seconds <= 0) continue;
    samples.push({ metric: 'http.request_rate', labels: w.labels, value: w.count / seconds });
    samples.push({ metric: 'http.error_rate', labels: w.labels, value: w.errors / w.count });
    w.buckets.sort(([a], [b]) => a - b);
    for (const [metric, q] of QUANTILES) {
      const ms = quantileMs(w.buckets, q);
      if (ms !== undefined) samples.push({ metric, labels: w.labels, value: ms });
    }
  }
}

/** The q-quantile of a cumulative histogram, interpolated linearly within its bucket (as Prometheus does). */
export function quantileMs(buckets: Array<[number, number]>, q: number): number | undefined {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [bound, count] of buckets) {
    if (count >= rank) {
      if (bound === Infinity) return lowerBound * 1000;
      const inBucket = count - lowerCount;
      const fraction = inBucket > 0 ? (rank - lowerCount) / inBucket : 0;
      return (lowerBound + (bound - lowerBound) * fraction) * 1000;
    }
    lowerBound = bound;
    lowerCount = count;
  }
  return lowerBound * 1000;
}
