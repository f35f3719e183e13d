// Collects a sample of the kernel's metrics every interval (and on POST /api/performance/collect), keeps
// the previous reading to turn counters into rates, judges the instance's health (a health snapshot),
// and compacts the series now and then. With instances sharing a PostgreSQL database each samples its
// own kernel: its samples carry an `instance` label (host name and port), so the series of two
// instances never mix; one of them (the leader of `compaction`) compacts.
import { hostname } from 'node:os';
import type { ExtensionContext } from '../../sdk/extension.js';
import { numberSetting } from '../../sdk/settings.js';
import { HealthStore, judge, type HealthSnapshot } from './health.js';
import { derive, kernelStart, type PromMetric, type Reading, type Sample } from './sampler.js';
import { SeriesStore } from './store.js';

const HOUR_MS = 3_600_000;

export interface CollectorSettings {
  intervalMs: number;
  rawKeepMs: number;
  keepMs: number;
  /** At most this often a collection compacts (0: every one). */
  compactEveryMs: number;
}

export function collectorSettings(ctx: ExtensionContext): CollectorSettings {
  return {
    intervalMs: numberSetting(ctx, 'SAMPLE_MS', 60_000, 1_000, 3_600_000),
    rawKeepMs: numberSetting(ctx, 'RAW_HOURS', 48, 1, 24 * 90) * HOUR_MS,
    keepMs: numberSetting(ctx, 'RETENTION_DAYS', 30, 1, 3650) * 24 * HOUR_MS,
    compactEveryMs: numberSetting(ctx, 'COMPACT_MINUTES', 10, 0, 24 * 60) * 60_000,
  };
}

export interface Collected {
  at: number;
  samples: Sample[];
  /** The health snapshot stored with it, if one was (see health.ts). */
  health: HealthSnapshot | undefined;
}

export class Collector {
  private previous: Reading | undefined;
  private lastCompact = 0;
  private timer: NodeJS.Timeout | undefined;
  /** One collection at a time: a manual one waits for a scheduled one in flight, and vice versa. */
  private running: Promise<Collected> = Promise.resolve({ at: 0, samples: [], health: undefined });

  /** This instance's name on a shared PostgreSQL database (host name and port); '' on SQLite. */
  readonly instance: string;

  constructor(
    private readonly ctx: ExtensionContext,
    readonly settings: CollectorSettings,
  ) {
    const port = new URL(String(ctx.init.config?.serverUrl ?? 'http://localhost')).port;
    this.instance = ctx.init.storage?.client === 'pg' ? `${hostname()}:${port}` : '';
  }

  start(): void {
    this.timer = setInterval(() => void this.collect().catch((err: Error) => this.ctx.host.log('warn', `performance sample failed: ${err.message}`)), this.settings.intervalMs);
    // The first reading has no rates; take it now so the first interval yields them.
    void this.collect().catch(() => undefined);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** `manual`: asked for (POST /api/performance/collect), so a health snapshot is stored whatever it says. */
  collect(manual = false): Promise<Collected> {
    this.running = this.running.catch(() => undefined).then(() => this.collectNow(manual));
    return this.running;
  }

  private async collectNow(manual: boolean): Promise<Collected> {
    const metrics = await this.ctx.host.systemMetrics<PromMetric[]>();
    const previous = this.previous ?? kernelStart(metrics);
    const at = Math.max(Date.now(), (previous?.at ?? 0) + 1);
    const { samples: own, reading } = derive(previous, metrics, at);
    const samples = this.instance ? own.map((s) => ({ ...s, labels: { ...s.labels, instance: this.instance } })) : own;
    this.previous = reading;
    const store = new SeriesStore(this.ctx.db);
    await store.insert(this.instance, at, samples);
    const health = await new HealthStore(this.ctx.db).record(this.instance, at, judge(metrics, own), manual);
    if (at - this.lastCompact >= this.settings.compactEveryMs && (await this.ctx.host.leader('compaction'))) {
      this.lastCompact = at;
      await store.compact(at, this.settings.rawKeepMs, this.settings.keepMs);
    }
    return { at, samples, health };
  }
}
