// Turning due schedules into executions. Each schedule's runs are inserted with their run_key
// (schedule, due time) and the schedule's next run moved on, in one transaction: a run is recorded
// once, whoever (tick or trigger, this instance or another) gets there first.
import type { Knex } from 'knex';
import type { SchedulerConfig } from './config.js';
import { executionRow, type ExecutionRow, type Trigger } from './executions.js';
import type { Action } from './actions.js';
import { isDestructive } from './actions.js';
import type { MissedPolicy, ScheduleRow } from './store.js';
import { nextRun, recentRuns, type Timing } from './timing.js';

export const timingOf = (row: Pick<ScheduleRow, 'cron' | 'timezone' | 'interval_seconds'>): Timing => ({
  cron: row.cron,
  timezone: row.timezone,
  intervalSeconds: row.interval_seconds === null ? null : Number(row.interval_seconds),
});

export interface PlannedRun {
  at: Date;
  trigger: Trigger;
}

/**
 * The runs to make now of a schedule due since `first`: those within the grace period run as usual;
 * older ones were missed (the server was down, or stalled) and follow the schedule's policy —
 * `skip` none of them, `run_once` the latest, `run_all` the latest `cap`.
 */
export function planRuns(timing: Timing, first: Date, now: Date, policy: MissedPolicy, config: SchedulerConfig): PlannedRun[] {
  const runs = recentRuns(timing, first, now, first, config.missedRunCap + Math.ceil(config.missedGraceSeconds / config.minIntervalSeconds) + 1);
  const graceStart = now.getTime() - config.missedGraceSeconds * 1000;
  const regular = runs.filter((at) => at.getTime() >= graceStart).map((at) => ({ at, trigger: 'schedule' as const }));
  const missed = runs.filter((at) => at.getTime() < graceStart);
  if (missed.length === 0 || policy === 'skip') return regular;
  if (policy === 'run_once') return regular.length > 0 ? regular : [{ at: missed[missed.length - 1]!, trigger: 'missed' }];
  return [...missed.slice(-config.missedRunCap).map((at) => ({ at, trigger: 'missed' as const })), ...regular];
}

export interface PlanOutcome {
  inserted: ExecutionRow[];
  /** The schedule's next run was already moved by someone else: nothing done. */
  raced: boolean;
}

/** Records the planned runs of a due schedule and moves its next run past `now` (in `trx`). */
export async function recordDue(trx: Knex.Transaction, row: ScheduleRow, now: Date, config: SchedulerConfig): Promise<PlanOutcome> {
  const timing = timingOf(row);
  const first = new Date(row.next_run_at!);
  const runs = planRuns(timing, first, now, row.missed_policy, config);
  const next = nextRun(timing, now, first);
  const moved = await trx('schedules').where({ id: row.id, next_run_at: row.next_run_at, status: 'active' }).update({ next_run_at: next?.toISOString() ?? null, updated_at: now.toISOString() });
  if (moved === 0) return { inserted: [], raced: true };
  const action = JSON.parse(row.action) as Action;
  const rows = runs.map((run) => executionRow({ tenantId: row.tenant_id, scheduleId: row.id, dueAt: run.at, trigger: run.trigger, action, awaitingApproval: row.approval === 'owner_approve' }, now));
  if (rows.length === 0) return { inserted: [], raced: false };
  const ids = await trx('schedule_executions').insert(rows).onConflict('run_key').ignore().returning('id');
  const kept = new Set((ids as Array<{ id: string } | string>).map((r) => (typeof r === 'string' ? r : r.id)));
  return { inserted: rows.filter((r) => kept.has(r.id)), raced: false };
}

/** The default approval of an action: destructive ones wait for the owner. */
export const defaultApproval = (action: Action) => (isDestructive(action) ? 'owner_approve' : 'auto');
