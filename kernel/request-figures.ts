// The two figures every REST request adds to: roost_http_requests_total (by method, route pattern,
// owner and status) and roost_http_request_duration_seconds (by method, route pattern and owner). They
// are kept here rather than in prom-client's Counter and Histogram, whose every increment checks and
// hashes its labels — a few microseconds a request, as much as a health probe's own code. A request
// adds to the entry of one string key; the figures read as the JSON prom-client's Counter and
// Histogram give (`get()`), and sit in its Registry beside the others, so /metrics and the samplers
// read them as before.
import type { Metric, Registry } from 'prom-client';

type RequestLabels = { method: string; route: string; owner: string };
type Value = { labels: Record<string, string | number>; value: number; metricName?: string };

interface Durations {
  labels: RequestLabels;
  /** Observations per bucket (not cumulative); the last counts what is over every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

const REQUESTS = 'roost_http_requests_total';
const DURATION = 'roost_http_request_duration_seconds';

export class RequestFigures {
  private readonly requests = new Map<string, { labels: RequestLabels & { status: string }; value: number }>();
  private readonly durations = new Map<string, Durations>();

  /** `bounds`: the histogram's upper bounds in seconds, ascending. */
  constructor(registry: Registry, private readonly bounds: number[]) {
    registry.registerMetric(metric(REQUESTS, 'REST requests answered, by route pattern, owner (kernel or extension) and status', 'counter',
      () => [...this.requests.values()].map(({ labels, value }) => ({ labels: { ...labels }, value })), () => this.requests.clear()));
    registry.registerMetric(metric(DURATION, 'Time from a REST request arriving to its answer, by route pattern and owner', 'histogram',
      () => this.durationValues(), () => this.durations.clear()));
  }

  observe(method: string, route: string, owner: string, status: number, seconds: number): void {
    const series = `${method}\n${route}\n${owner}`;
    const key = `${series}\n${status}`;
    const counted = this.requests.get(key);
    if (counted) counted.value++;
    else this.requests.set(key, { labels: { method, route, owner, status: String(status) }, value: 1 });
    let durations = this.durations.get(series);
    if (!durations) this.durations.set(series, (durations = { labels: { method, route, owner }, buckets: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 }));
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket++;
    durations.buckets[bucket]!++;
    durations.sum += seconds;
    durations.count++;
  }

  /** Cumulative buckets, then +Inf, sum and count per series, as prom-client's Histogram lists them. */
  private durationValues(): Value[] {
    const values: Value[] = [];
    for (const { labels, buckets, sum, count } of this.durations.values()) {
      let below = 0;
      this.bounds.forEach((le, i) => values.push({ labels: { le, ...labels }, value: (below += buckets[i]!), metricName: `${DURATION}_bucket` }));
      values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: `${DURATION}_bucket` });
      values.push({ labels: { ...labels }, value: sum, metricName: `${DURATION}_sum` });
      values.push({ labels: { ...labels }, value: count, metricName: `${DURATION}_count` });
    }
    return values;
  }
}

/** What prom-client's Registry asks of a metric: its name and kind, `get()` and `reset()`. */
function metric(name: string, help: string, type: 'counter' | 'histogram', values: () => Value[], reset: () => void): Metric {
  return { name, help, type, aggregator: 'sum', get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }), reset } as unknown as Metric;
}
