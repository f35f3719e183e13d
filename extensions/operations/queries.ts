// Reading the query strings of the performance routes: instants, durations, label filters.
import { validationError } from '../../protocol/errors.js';
import { queryString } from '../../sdk/http.js';
import { METRICS } from './sampler.js';

type Query = Record<string, string | string[]>;

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** The labels a trend may be filtered by. */
const LABELS = ['route', 'owner', 'extension', 'database', 'instance', 'queue'];

/** "90s", "15m", "24h", "7d". */
export function duration(query: Query, name: string, fallbackMs: number, maxMs = 366 * UNIT_MS.d!): number {
  const raw = queryString(query, name);
  if (raw === undefined || raw === '') return fallbackMs;
  const match = /^(\d{1,6})([smhd])$/.exec(raw);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]!]! : NaN;
  if (!(ms > 0 && ms <= maxMs)) throw validationError(`query.${name} must be a duration such as 90s, 15m, 24h or 7d (at most ${maxMs / UNIT_MS.d!} days), got "${raw}"`);
  return ms;
}

/** An ISO 8601 time or milliseconds since the epoch. */
export function instant(query: Query, name: string, fallback: number): number {
  const raw = queryString(query, name);
  if (raw === undefined || raw === '') return fallback;
  const at = /^\d{1,15}$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(at)) throw validationError(`query.${name} must be an ISO 8601 time or milliseconds since the epoch, got "${raw}"`);
  return at;
}

export function number(query: Query, name: string, fallback: number, min: number, max: number): number {
  const raw = queryString(query, name);
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw validationError(`query.${name} must be a number from ${min} to ${max}, got "${raw}"`);
  return n;
}

export function metricName(query: Query, required: boolean): string | undefined {
  const metric = queryString(query, 'metric');
  if (metric === undefined || metric === '') {
    if (required) throw validationError(`query.metric is required: one of ${Object.keys(METRICS).join(', ')}`);
    return undefined;
  }
  if (!METRICS[metric]) throw validationError(`query.metric "${metric}" is not a metric; GET /api/performance/metrics lists them`);
  return metric;
}

export function labelFilter(query: Query): Record<string, string> | undefined {
  const entries = LABELS.map((name) => [name, queryString(query, name)] as const).filter((e): e is [string, string] => e[1] !== undefined);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}
