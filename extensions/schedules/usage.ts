// Usage of schedules from their executions: runs, cost (microUnits: what the sessions of each run's
// whole effect were charged by the credits extension), credits (a credit is 1,000,000 microUnits, as the
// credits extension counts), duration (until that effect ended), and anomaly flags (anomaly.ts), per
// schedule and per day, within a window of days. Each run is compared with the runs of its schedule
// before it, those before the window included.
import { validationError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { queryString } from '../../sdk/http.js';
import { flag, HISTORY, type Flag } from './anomaly.js';
import type { ExecutionRow } from './executions.js';

/** The credits extension's unit: amounts are microUnits, millionths of a credit. */
const MICRO_PER_CREDIT = 1_000_000;
const FINISHED = ['succeeded', 'failed'];
/** Schedule ids per query of their earlier runs (SQLite's limit of bound variables). */
const ID_CHUNK = 400;
const MAX_ROWS = 20_000;
const MIN_COST_SPREAD = 1;
const MIN_DURATION_SPREAD_MS = 100;

export interface Run {
  executionId: string;
  scheduleId: string;
  status: string;
  at: string;
  cost: number;
  durationMs: number;
  flags: Flag[];
}

export function windowDays(query: Record<string, string | string[]>): number {
  const raw = queryString(query, 'days');
  if (raw === undefined) return 30;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 366) throw validationError('query.days must be an integer from 1 to 366');
  return n;
}

type Metrics = Pick<ExecutionRow, 'schedule_id' | 'cost_micro' | 'duration_ms'>;
type History = Map<string, { cost: number[]; duration: number[] }>;

function remember(history: History, row: Metrics): { cost: number[]; duration: number[] } {
  const h = history.get(row.schedule_id) ?? { cost: [], duration: [] };
  history.set(row.schedule_id, h);
  return h;
}

function push(h: { cost: number[]; duration: number[] }, cost: number, durationMs: number): void {
  h.cost.push(cost);
  h.duration.push(durationMs);
  if (h.cost.length > HISTORY) (h.cost.shift(), h.duration.shift());
}

/** The latest HISTORY finished runs of each schedule before `since`, oldest first: the baseline the window starts from. */
async function earlierRuns(ctx: ExtensionContext, tenantId: string, since: string, scheduleIds: string[]): Promise<Metrics[]> {
  const out: Metrics[] = [];
  for (let i = 0; i < scheduleIds.length; i += ID_CHUNK) {
    const ranked = ctx.db('schedule_executions').where({ tenant_id: tenantId }).whereIn('status', FINISHED).where('created_at', '<', since)
      .whereIn('schedule_id', scheduleIds.slice(i, i + ID_CHUNK))
      .select('schedule_id', 'cost_micro', 'duration_ms', 'created_at', 'id')
      .rowNumber('rn', function () {
        this.orderBy('created_at', 'desc').orderBy('id', 'desc').partitionBy('schedule_id');
      });
    out.push(...((await ctx.db.from(ranked.as('ranked')).where('rn', '<=', HISTORY).orderBy('created_at').orderBy('id')) as Metrics[]));
  }
  return out;
}

/** Finished runs (succeeded or failed) in the window, oldest first, each flagged against the runs before it. */
export async function runs(ctx: ExtensionContext, tenantId: string, now: Date, days: number, scheduleId?: string): Promise<Run[]> {
  const since = new Date(now.getTime() - days * 86_400_000).toISOString();
  const query = ctx.db<ExecutionRow>('schedule_executions').where({ tenant_id: tenantId }).whereIn('status', FINISHED).where('created_at', '>=', since);
  if (scheduleId) query.where({ schedule_id: scheduleId });
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(MAX_ROWS).select('id', 'schedule_id', 'status', 'created_at', 'cost_micro', 'duration_ms');
  rows.reverse();
  const history: History = new Map();
  for (const row of await earlierRuns(ctx, tenantId, since, [...new Set(rows.map((r) => r.schedule_id))])) {
    push(remember(history, row), Number(row.cost_micro), Number(row.duration_ms ?? 0));
  }
  return rows.map((row) => {
    const h = remember(history, row);
    const cost = Number(row.cost_micro);
    const durationMs = Number(row.duration_ms ?? 0);
    const flags = [flag('cost', cost, h.cost, MIN_COST_SPREAD), flag('duration', durationMs, h.duration, MIN_DURATION_SPREAD_MS)].filter((f): f is Flag => f !== null);
    push(h, cost, durationMs);
    return { executionId: row.id, scheduleId: row.schedule_id, status: row.status, at: row.created_at, cost, durationMs, flags };
  });
}

export interface Totals {
  runs: number;
  succeeded: number;
  failed: number;
  cost: number;
  credits: number;
  durationMs: number;
  avgDurationMs: number | null;
}

export function totals(list: Run[]): Totals {
  const cost = list.reduce((sum, r) => sum + r.cost, 0);
  const durationMs = list.reduce((sum, r) => sum + r.durationMs, 0);
  return {
    runs: list.length,
    succeeded: list.filter((r) => r.status === 'succeeded').length,
    failed: list.filter((r) => r.status === 'failed').length,
    cost,
    credits: cost / MICRO_PER_CREDIT,
    durationMs,
    avgDurationMs: list.length > 0 ? Math.round(durationMs / list.length) : null,
  };
}

/** Per schedule: totals, the flags of its latest run, and how many of its runs were flagged. */
export function perSchedule(list: Run[]): Array<Totals & { scheduleId: string; lastRunAt: string | null; anomalous: boolean; latestFlags: Flag[]; flaggedRuns: number }> {
  const groups = new Map<string, Run[]>();
  for (const r of list) groups.set(r.scheduleId, [...(groups.get(r.scheduleId) ?? []), r]);
  return [...groups].map(([scheduleId, group]) => {
    const latest = group[group.length - 1]!;
    return { scheduleId, ...totals(group), lastRunAt: latest.at, anomalous: latest.flags.length > 0, latestFlags: latest.flags, flaggedRuns: group.filter((r) => r.flags.length > 0).length };
  });
}

export function perDay(list: Run[]): Array<Totals & { date: string }> {
  const days = new Map<string, Run[]>();
  for (const r of list) days.set(r.at.slice(0, 10), [...(days.get(r.at.slice(0, 10)) ?? []), r]);
  return [...days].map(([date, group]) => ({ date, ...totals(group) }));
}
