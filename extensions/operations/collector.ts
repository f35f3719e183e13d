// Collects a sample of the kernel's metrics every interval (and on POST /api/performance/collect), keeps
// the previous reading to turn counters into rates, and compacts the series now and then. With
// instances sharing a PostgreSQL database each samples its own kernel: its samples carry an `instance`
// label (host name and port), so the series of two instances never mix.
import { hostname } from 'node:os';
import type { ExtensionContext } from '../_shared/extension.js';
import { numberSetting } from '../_shared/settings.js';
import { derive, type PromMetric, type Reading, type Sample } from './sampler.js';
import { SeriesStore } from './store.js';

const HOUR_MS = 3_600_000;
const COMPACT_EVERY_MS = 10 * 60_000;

export interface CollectorSettings {
  intervalMs: number;
  rawKeepMs: number;
  keepMs: number;
}

export function collectorSettings(ctx: ExtensionContext): CollectorSettings {
  return {
    intervalMs: numberSetting(ctx, 'SAMPLE_MS', 60_000, 1_000, 3_600_000),
    rawKeepMs: numberSetting(ctx, 'RAW_HOURS', 48, 1, 24 * 90) * HOUR_MS,
    keepMs: numberSetting(ctx, 'RETENTION_DAYS', 30, 1, 3650) * 24 * HOUR_MS,
  };
}

export class Collector {
  private previous: Reading | undefined;
  private lastCompact = 0;
  private timer: NodeJS.Timeout | undefined;
  /** One collection at a time: a manual one waits for a scheduled one in flight, and vice versa. */
  private running: Promise<{ at: number; samples: Sample[] }> = Promise.resolve({ at: 0, samples: [] });

  private readonly instance: string | undefined;

  constructor(
    private readonly ctx: ExtensionContext,
    private readonly settings: CollectorSettings,
  ) {
    const port = new URL(String(ctx.init.config?.serverUrl ?? 'http://localhost')).port;
    this.instance = ctx.init.storage?.client === 'pg' ? `${hostname()}:${port}` : undefined;
  }

  start(): void {
    this.timer = setInterval(() => void this.collect().catch((err: Error) => this.ctx.host.log('warn', `performance sample failed: ${err.message}`)), this.settings.intervalMs);
    // The first reading has no rates; take it now so the first interval yields them.
    void this.collect().catch(() => undefined);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  collect(): Promise<{ at: number; samples: Sample[] }> {
    this.running = this.running.catch(() => undefined).then(() => this.collectNow());
    return this.running;
  }

  private async collectNow(): Promise<{ at: number; samples: Sample[] }> {
    const metrics = await this.ctx.host.systemMetrics<PromMetric[]>();
    const at = Math.max(Date.now(), (this.previous?.at ?? 0) + 1);
    const { samples: own, reading } = derive(this.previous, metrics, at);
    const samples = this.instance ? own.map((s) => ({ ...s, labels: { ...s.labels, instance: this.instance! } })) : own;
    this.previous = reading;
    const store = new SeriesStore(this.ctx.db);
    await store.insert(at, samples);
    if (at - this.lastCompact >= COMPACT_EVERY_MS) {
      this.lastCompact = at;
      await store.compact(at, this.settings.rawKeepMs, this.settings.keepMs);
    }
    return { at, samples };
  }
}
