// The performance time series: raw samples of each collection, rolled up into hourly ones past the raw
// retention, and deleted past the whole retention. With instances sharing a PostgreSQL database each
// stores its own samples (column and label `instance`); one compacts them all.
import type { Knex } from 'knex';
import type { Sample } from './sampler.js';

export interface Point {
  at: string;
  value: number;
  /** Rolled-up points: the hour's range and how many samples it holds. */
  min?: number;
  max?: number;
  count?: number;
}

export interface Series {
  metric: string;
  labels: Record<string, string>;
  points: Point[];
}

/** The latest collection of one instance ('' on SQLite). */
export interface Collection {
  instance: string;
  at: number;
  samples: Sample[];
}

interface Row {
  instance: string;
  metric: string;
  labels: string;
  at: number | string;
  resolution: 'raw' | 'hour';
  value: number;
  min: number;
  max: number;
  count: number;
}

const HOUR_MS = 3_600_000;

export const canonicalLabels = (labels: Record<string, string>): string => JSON.stringify(Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b))));

export class SeriesStore {
  constructor(private readonly db: Knex) {}

  async insert(instance: string, at: number, samples: Sample[]): Promise<void> {
    const rows = samples.map((s) => ({ instance, metric: s.metric, labels: canonicalLabels(s.labels), at, resolution: 'raw', value: s.value, min: s.value, max: s.value, count: 1 }));
    await this.db.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += 200) await trx('perf_samples').insert(rows.slice(i, i + 200));
      await trx('perf_instances').insert({ instance, last_at: at }).onConflict('instance').merge();
    });
  }

  /**
   * The latest collection of each instance that collected within `liveMs` of the newest one (an
   * instance that stopped long ago is no part of the present), newest first.
   */
  async latest(liveMs: number): Promise<Collection[]> {
    const instances: Array<{ instance: string; last_at: number | string }> = await this.db('perf_instances').orderBy('last_at', 'desc');
    const newest = Number(instances[0]?.last_at ?? 0);
    const live = instances.filter((i) => Number(i.last_at) >= newest - liveMs);
    return Promise.all(live.map(async ({ instance, last_at }) => {
      const rows = await this.db<Row>('perf_samples').where({ instance, resolution: 'raw', at: last_at }).orderBy(['metric', 'labels']);
      return { instance, at: Number(last_at), samples: rows.map((r) => ({ metric: r.metric, labels: JSON.parse(r.labels), value: Number(r.value) })) };
    }));
  }

  /** Every series of one metric (or all) in [from, to], oldest first; `labels` keeps those that carry them all. */
  async series(query: { metric?: string; from: number; to: number; labels?: Record<string, string> }): Promise<Series[]> {
    const rows = await this.db<Row>('perf_samples')
      .modify((q) => (query.metric ? q.where({ metric: query.metric }) : q))
      .whereBetween('at', [query.from, query.to])
      .orderBy(['metric', 'labels', 'at']);
    const out = new Map<string, Series>();
    for (const row of rows) {
      const labels = JSON.parse(row.labels) as Record<string, string>;
      if (query.labels && Object.entries(query.labels).some(([k, v]) => labels[k] !== v)) continue;
      const key = `${row.metric}${row.labels}`;
      let series = out.get(key);
      if (!series) out.set(key, (series = { metric: row.metric, labels, points: [] }));
      series.points.push(row.resolution === 'raw'
        ? { at: new Date(Number(row.at)).toISOString(), value: Number(row.value) }
        : { at: new Date(Number(row.at)).toISOString(), value: Number(row.value), min: Number(row.min), max: Number(row.max), count: Number(row.count) });
    }
    return [...out.values()];
  }

  async metricNames(): Promise<string[]> {
    return (await this.db('perf_samples').distinct('metric').orderBy('metric')).map((r: { metric: string }) => r.metric);
  }

  /**
   * Rolls raw samples older than `rawKeepMs` (whole hours only, so an hour is rolled up once) into one
   * sample per series and hour, and deletes what is older than `keepMs` (health snapshots too). On
   * PostgreSQL the raw rows are locked as they are read: a compaction running at the same time elsewhere
   * waits, then finds them gone, and no hour is rolled up twice.
   */
  async compact(now: number, rawKeepMs: number, keepMs: number): Promise<{ rolled: number; deleted: number }> {
    const cutoff = Math.floor((now - rawKeepMs) / HOUR_MS) * HOUR_MS;
    const pg = this.db.client.config.client === 'pg';
    return this.db.transaction(async (trx) => {
      const old = await trx<Row>('perf_samples').where({ resolution: 'raw' }).andWhere('at', '<', cutoff).modify((q) => (pg ? q.forUpdate() : q));
      const hours = new Map<string, { instance: string; metric: string; labels: string; at: number; sum: number; min: number; max: number; count: number }>();
      for (const row of old) {
        const at = Math.floor(Number(row.at) / HOUR_MS) * HOUR_MS;
        const key = `${row.instance}\n${row.metric}${row.labels}${at}`;
        const value = Number(row.value);
        const hour = hours.get(key);
        if (!hour) hours.set(key, { instance: row.instance, metric: row.metric, labels: row.labels, at, sum: value, min: value, max: value, count: 1 });
        else Object.assign(hour, { sum: hour.sum + value, min: Math.min(hour.min, value), max: Math.max(hour.max, value), count: hour.count + 1 });
      }
      const rows = [...hours.values()].map((h) => ({ instance: h.instance, metric: h.metric, labels: h.labels, at: h.at, resolution: 'hour', value: h.sum / h.count, min: h.min, max: h.max, count: h.count }));
      for (let i = 0; i < rows.length; i += 200) await trx('perf_samples').insert(rows.slice(i, i + 200));
      await trx('perf_samples').where({ resolution: 'raw' }).andWhere('at', '<', cutoff).delete();
      const deleted = await trx('perf_samples').where('at', '<', now - keepMs).delete();
      await trx('health_snapshots').where('at', '<', now - keepMs).delete();
      return { rolled: old.length, deleted };
    });
  }
}
