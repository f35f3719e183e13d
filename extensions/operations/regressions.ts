// A regression: a series whose recent values sit above what its own history allows. History is the
// baseline window's median plus k robust standard deviations (the median absolute deviation scaled by
// 1.4826), and at least a share of the median and a floor per unit — so a flat, quiet baseline does not
// turn every wobble into an alarm. Only metrics where higher is worse are judged.
import { METRICS } from './sampler.js';
import type { Series } from './store.js';

export interface RegressionOptions {
  /** Points at or after this instant are the recent window… */
  recentFrom?: number;
  /** …or the last this many points of each series are. */
  recentCount?: number;
  /** Robust standard deviations allowed above the baseline median (default 3). */
  k: number;
  /** The smallest rise, as a share of the baseline median, that counts (default 0.2). */
  minChange: number;
  /** Baseline points a series needs before it is judged (default 5). */
  minBaseline: number;
}

export interface Regression {
  metric: string;
  labels: Record<string, string>;
  unit: string;
  recent: { from: string; to: string; points: number; median: number };
  baseline: { from: string; to: string; points: number; median: number; mad: number };
  threshold: number;
  /** recent median / baseline median − 1 (null when the baseline median is 0). */
  change: number | null;
}

const MAD_TO_SIGMA = 1.4826;
const FLOOR_BY_UNIT: Record<string, number> = { ms: 1, '%': 1, bytes: 1_048_576, ratio: 0.01, count: 1, 'req/s': 0.1 };

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function findRegressions(all: Series[], options: RegressionOptions): Regression[] {
  const found: Regression[] = [];
  for (const series of all) {
    const meta = METRICS[series.metric];
    if (!meta?.higherIsWorse) continue;
    const split = options.recentCount !== undefined
      ? series.points.length - options.recentCount
      : series.points.findIndex((p) => Date.parse(p.at) >= (options.recentFrom ?? Infinity));
    if (split < 0) continue;
    const baseline = series.points.slice(0, split);
    const recent = series.points.slice(split);
    if (recent.length === 0 || baseline.length < options.minBaseline) continue;
    const baseValues = baseline.map((p) => p.value);
    const base = median(baseValues);
    const mad = median(baseValues.map((v) => Math.abs(v - base))) * MAD_TO_SIGMA;
    const threshold = base + Math.max(options.k * mad, options.minChange * Math.abs(base), FLOOR_BY_UNIT[meta.unit] ?? 0);
    const now = median(recent.map((p) => p.value));
    if (now <= threshold) continue;
    found.push({
      metric: series.metric,
      labels: series.labels,
      unit: meta.unit,
      recent: { from: recent[0]!.at, to: recent.at(-1)!.at, points: recent.length, median: now },
      baseline: { from: baseline[0]!.at, to: baseline.at(-1)!.at, points: baseline.length, median: base, mad },
      threshold,
      change: base === 0 ? null : now / base - 1,
    });
  }
  // The worst first.
  return found.sort((a, b) => (b.change ?? Number.MAX_VALUE) - (a.change ?? Number.MAX_VALUE));
}
