// One JSON line per figure on stdout, the format test/bench/run.ts passes through:
// {"bench","figure","value","unit","target", …extra fields such as baseline and ratio}. Every line also
// carries the machine's 1-minute load average when the figure was taken: timings from a machine that
// was busy with other work are not comparable with timings from an idle one.
import { loadavg } from 'node:os';

export type Unit = 'ms' | 'us' | 'x' | 'ops/s' | 'MB';

export function reporter(bench: string) {
  return (figure: string, value: number, unit: Unit, target: string, extra: Record<string, unknown> = {}): void => {
    process.stdout.write(`${JSON.stringify({ bench, figure, value: round(value), unit, target, ...roundAll(extra), loadAverage1m: round(loadavg()[0]!) })}\n`);
  };
}

/** Four significant digits: enough to compare runs, no false precision. */
export function round(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  return Number(value.toPrecision(4));
}

function roundAll(extra: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v]));
}
