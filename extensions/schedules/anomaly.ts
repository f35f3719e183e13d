// A run is anomalous when it costs or lasts far more than the runs of its schedule before it: above
// median + K · MAD (the median absolute deviation, scaled to a standard deviation for normal data).
// Robust: a few past outliers move neither the median nor the MAD. Below MIN_HISTORY earlier runs
// nothing is flagged; a floor on the spread keeps a perfectly steady history from flagging noise.
export const K = 3;
export const MIN_HISTORY = 5;
/** How many earlier runs a run is compared with. */
export const HISTORY = 50;
const MAD_SCALE = 1.4826;

export interface Baseline {
  median: number;
  mad: number;
  threshold: number;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The threshold above which a value is anomalous given its history, or null with too little history.
 * `minSpread`: the least spread assumed (a unit of the metric: 1 microUnit, 100 ms).
 */
export function baseline(history: number[], minSpread: number): Baseline | null {
  if (history.length < MIN_HISTORY) return null;
  const m = median(history);
  const mad = median(history.map((v) => Math.abs(v - m))) * MAD_SCALE;
  const spread = Math.max(mad, 0.1 * Math.abs(m), minSpread);
  return { median: m, mad, threshold: m + K * spread };
}

export interface Flag extends Baseline {
  metric: 'cost' | 'duration';
  value: number;
}

/** The flag of `value` against its history, if it is anomalous. */
export function flag(metric: Flag['metric'], value: number, history: number[], minSpread: number): Flag | null {
  const b = baseline(history, minSpread);
  return b && value > b.threshold ? { metric, value, ...b } : null;
}
