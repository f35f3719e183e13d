// The server's figures (prom-client), kept here and read with `system_metrics` — a scrape's reading
// (rendered as Prometheus text by an extension) or a sampler's: requests and their latency per
// route and per extension, WebSocket clients, each extension's state, restarts, CPU and
// memory (its whole sandbox), the databases' size, queue depths, and the kernel process's own (CPU,
// memory, event-loop delay, GC). Routes are labelled by their declared pattern, never the raw path, so
// the number of series stays bounded whatever callers send.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { processTree, readOr } from '../lib/proc.js';
import type { Extension, ExtensionRegistry } from './host/registry.js';
import { RequestFigures } from './request-figures.js';

export interface MetricsSources {
  registry(): ExtensionRegistry;
  wsClients(): number;
  /** The size of each database: SQLite files with their WAL, or the PostgreSQL database. */
  databaseSizes(): Promise<Array<{ database: string; bytes: number }>>;
  /** Bus events waiting to be sent to the other instances (0 with one instance). */
  busBacklog(): number;
  /** Log lines each extension logged past its rate limit, dropped (kernel/host/log-limit.ts). */
  droppedLogLines(): ReadonlyMap<string, number>;
  /** Each started extension's disk budget and its folder's last measured usage (kernel/host/extension-guard.ts). */
  diskFigures(): Array<{ extension: string; budget: number; used: number | undefined }>;
}

const CLOCK_TICKS_PER_SECOND = 100;
const PAGE_BYTES = 4096;
/** prom-client's event-loop gauges: reading them resets their histogram, so only a scrape (for /metrics) does. */
const SCRAPE_EVENT_LOOP = /^roost_kernel_nodejs_eventloop_lag/;
/** The event-loop delay since the previous `sample()`, in the samples it answers. */
const SAMPLE_EVENT_LOOP_P99 = 'roost_sample_event_loop_delay_p99_seconds';

export class KernelMetrics {
  readonly registry = new Registry();
  /** Requests answered and their durations (request-figures.ts). */
  private readonly requests: RequestFigures;
  private readonly refusedConnections: Counter;
  private readonly slowWsClients: Counter;
  /** The event-loop delay of the samples' own window (system_metrics), apart from the one of /metrics' scrapes. */
  private readonly sampleDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'roost_kernel_' });
    // prom-client's sums of the by-type gauges end in _total, which Prometheus keeps for counters
    // (promtool refuses them); the by-type gauges (nodejs_active_handles{type}, …) say the same.
    for (const what of ['handles', 'requests', 'resources']) this.registry.removeSingleMetric(`roost_kernel_nodejs_active_${what}_total`);
    this.sampleDelay.enable();
    this.requests = new RequestFigures(this.registry, [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]);
    this.refusedConnections = new Counter({
      name: 'roost_http_connections_refused_total', help: 'Connections refused (503) because their address already had as many open as it may', registers,
    });
    this.slowWsClients = new Counter({
      name: 'roost_ws_slow_clients_closed_total', help: 'WebSocket clients closed (1013) for not reading what was sent to them', registers,
    });
    new Gauge({
      name: 'roost_ws_clients', help: 'WebSocket clients connected now', registers,
      collect() {
        this.set(sources.wsClients());
      },
    });
    new Gauge({
      name: 'roost_extension_up', help: '1 when the extension serves now, else 0; its state as a label',
      labelNames: ['extension', 'state'], registers,
      collect() {
        this.reset();
        for (const ext of sources.registry().list()) this.set({ extension: ext.manifest.name, state: ext.state }, ext.state === 'running' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'roost_extension_restarts', help: 'Restarts of the extension after a crash since the server started',
      labelNames: ['extension'], registers,
      collect() {
        this.reset();
        for (const ext of sources.registry().list()) this.set({ extension: ext.manifest.name }, ext.restarts);
      },
    });
    const perRunningExtension = (name: string, help: string, measure: (pid: number) => number) => new Gauge({
      name, help, labelNames: ['extension'], registers,
      collect() {
        this.reset();
        for (const ext of sources.registry().list()) {
          const pid = ext.process?.pid;
          if (pid !== undefined) this.set({ extension: ext.manifest.name }, processTree(pid).reduce((sum, each) => sum + measure(each), 0));
        }
      },
    });
    perRunningExtension('roost_extension_cpu_seconds', 'CPU time of the running extension process and everything in its sandbox', cpuSeconds);
    perRunningExtension('roost_extension_resident_memory_bytes', 'Resident memory of the running extension process and everything in its sandbox', residentBytes);
    queueGauges(sources, registers);
    new Gauge({
      name: 'roost_extension_disk_bytes', help: 'What the extension\'s data folder takes on disk, as its guard last measured it',
      labelNames: ['extension'], registers,
      collect() {
        this.reset();
        for (const { extension, used } of sources.diskFigures()) if (used !== undefined) this.set({ extension }, used);
      },
    });
    new Gauge({
      name: 'roost_extension_disk_budget_bytes', help: 'The extension\'s disk budget: over it, it is stopped and not started again',
      labelNames: ['extension'], registers,
      collect() {
        this.reset();
        for (const { extension, budget } of sources.diskFigures()) this.set({ extension }, budget);
      },
    });
    new Counter({
      name: 'roost_extension_log_lines_dropped_total', help: 'Log lines of the extension dropped because it logged past its rate limit',
      labelNames: ['extension'], registers,
      collect() {
        this.reset();
        for (const [extension, count] of sources.droppedLogLines()) this.inc({ extension }, count);
      },
    });
    new Gauge({
      name: 'roost_database_size_bytes', help: 'Size of each database: a SQLite file with its write-ahead log, or the PostgreSQL database',
      labelNames: ['database'], registers,
      async collect() {
        const sizes = await sources.databaseSizes();
        this.reset();
        for (const { database, bytes } of sizes) this.set({ database }, bytes);
      },
    });
  }

  /** One answered request; `route` is the matched pattern ("unmatched" when nothing served it). */
  observe(method: string, route: string, owner: string, status: number, seconds: number): void {
    this.requests.observe(method, route, owner, status, seconds);
  }

  connectionRefused(): void {
    this.refusedConnections.inc();
  }

  slowWsClientClosed(): void {
    this.slowWsClients.inc();
  }

  /** Every figure as prom-client's JSON, the event-loop gauges of the scrapes' own window included (reading them resets it). */
  scrape(): Promise<unknown[]> {
    return this.registry.getMetricsAsJSON();
  }

  /**
   * Every figure of /metrics as prom-client's JSON, for a sampler (system_metrics) — except the scrape's
   * event-loop gauges, whose reading would empty the window of the next scrape. In their place, the
   * delay's 99th percentile since the previous sample, from a histogram of the samples' own.
   */
  async sample(): Promise<unknown[]> {
    const names = this.registry.getMetricsAsArray().map((m) => m.name).filter((name) => !SCRAPE_EVENT_LOOP.test(name));
    const figures = await Promise.all(names.map((name) => this.registry.getSingleMetric(name)!.get()));
    const p99 = this.sampleDelay.count > 0 ? this.sampleDelay.percentile(99) / 1e9 : 0;
    this.sampleDelay.reset();
    return [...figures, { name: SAMPLE_EVENT_LOOP_P99, help: "99th percentile of the kernel's event-loop delay since the previous sample", type: 'gauge', values: [{ value: p99, labels: {} }] }];
  }

  close(): void {
    this.sampleDelay.disable();
  }
}

/**
 * The kernel's own queues — requests waiting for an extension to start, requests sent to an extension
 * and not answered yet, bus events not yet sent to the other instances — and the ones each extension
 * reports (queue_depth).
 */
function queueGauges(sources: MetricsSources, registers: Registry[]): void {
  const perExtension = (name: string, help: string, labelNames: string[], each: (ext: Extension, set: (labels: Record<string, string>, value: number) => void) => void) => new Gauge({
    name, help, labelNames, registers,
    collect() {
      this.reset();
      for (const ext of sources.registry().list()) if (ext.state !== 'unloaded') each(ext, (labels, value) => this.set({ extension: ext.manifest.name, ...labels }, value));
    },
  });
  perExtension('roost_extension_start_waiting_requests', 'Requests waiting for the extension to start or restart before they can be sent to it', ['extension'], (ext, set) => set({}, ext.startWaiting));
  perExtension('roost_extension_pending_requests', 'Requests, tool calls and calls sent to the running extension and not answered yet', ['extension'], (ext, set) => {
    if (ext.process) set({}, ext.process.child.peer.inFlight);
  });
  perExtension('roost_extension_queue_depth', 'Items waiting in a queue of the extension, as it last reported (queue_depth)', ['extension', 'queue'], (ext, set) => {
    for (const [queue, depth] of ext.queues) set({ queue }, depth);
  });
  new Gauge({
    name: 'roost_bus_backlog', help: 'Bus events waiting to be sent to the other instances (PostgreSQL LISTEN/NOTIFY); 0 with one instance', registers,
    collect() {
      this.set(sources.busBacklog());
    },
  });
}

function cpuSeconds(pid: number): number {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8'), '');
  if (!stat) return 0;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

function residentBytes(pid: number): number {
  const statm = readOr(() => readFileSync(`/proc/${pid}/statm`, 'utf8'), '');
  return statm ? Number(statm.split(' ')[1]) * PAGE_BYTES : 0;
}

function fileSize(file: string): number {
  return readOr(() => statSync(file).size, 0);
}

/** The SQLite files of a data dir (the kernel's and each extension's own), each with its WAL. */
export function sqliteSizes(dataDir: string): Array<{ database: string; bytes: number }> {
  const extensions = join(dataDir, 'extensions');
  const names = readOr(() => readdirSync(extensions), [] as string[]);
  return [join(dataDir, 'kernel.sqlite'), ...names.map((name) => join(extensions, name, `${name}.sqlite`))]
    .filter((file) => fileSize(file) > 0)
    .map((file) => ({ database: file, bytes: fileSize(file) + fileSize(`${file}-wal`) }));
}
