// Turning due schedules into executions. Each schedule's runs are inserted with their run_key
// (schedule, due time) and the schedule's next run moved on, in one transaction: a run is recorded
// once, whoever (tick or trigger, this instance or another) gets there first.
import type { Knex } from 'knex';
import type { SchedulerConfig } from './config.js';
import { approvalUntil, executionRow, supersede, type ExecutionRow, type Trigger } from './executions.js';
import { anyDestructive, decodeActions, type Action } from './actions.js';
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

/**
 * Records the planned runs of due schedules and moves each one's next run past `now`, in `trx`, with a
 * few statements for the whole batch: one UPDATE … RETURNING per (old, new) next-run pair — only rows
 * still active and still at their old next run move (a trigger, a pause or another leader may have
 * come first) — then one INSERT of the runs of the moved ones, a run_key already taken being skipped.
 * Returns the executions inserted, and the older runs waiting for approval they superseded.
 */
export async function recordDue(trx: Knex.Transaction, due: ScheduleRow[], now: Date, config: SchedulerConfig): Promise<{ inserted: ExecutionRow[]; superseded: ExecutionRow[] }> {
  const groups = new Map<string, { from: string; to: string | null; rows: ScheduleRow[] }>();
  for (const row of due) {
    const next = nextRun(timingOf(row), now, new Date(row.next_run_at!))?.toISOString() ?? null;
    const key = `${row.next_run_at}|${next}`;
    const group = groups.get(key) ?? { from: row.next_run_at!, to: next, rows: [] };
    group.rows.push(row);
    groups.set(key, group);
  }
  const moved: ScheduleRow[] = [];
  for (const group of groups.values()) {
    for (let i = 0; i < group.rows.length; i += CHUNK) {
      const chunk = group.rows.slice(i, i + CHUNK);
      const ids = await trx('schedules').whereIn('id', chunk.map((r) => r.id)).where({ next_run_at: group.from, status: 'active' }).update({ next_run_at: group.to, updated_at: now.toISOString() }).returning('id');
      const kept = new Set(idsOf(ids));
      moved.push(...chunk.filter((r) => kept.has(r.id)));
    }
  }
  const rows = moved.flatMap((row) => {
    const actions = decodeActions(row.action);
    const until = approvalUntil({ approval: row.approval, approvalWindowSeconds: row.approval_window_seconds }, config.approvalWindowSeconds, now);
    return planRuns(timingOf(row), new Date(row.next_run_at!), now, row.missed_policy, config)
      .map((run) => executionRow({ tenantId: row.tenant_id, scheduleId: row.id, dueAt: run.at, trigger: run.trigger, actions, approvalUntil: until }, now));
  });
  const inserted = new Set<string>();
  // 21 columns a row: 40 rows stay far below SQLite's limit of bound variables per statement.
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    for (const id of idsOf(await trx('schedule_executions').insert(rows.slice(i, i + INSERT_CHUNK)).onConflict('run_key').ignore().returning('id'))) inserted.add(id);
  }
  const recorded = rows.filter((r) => inserted.has(r.id));
  return { inserted: recorded, superseded: await supersede(trx, recorded.filter((r) => r.status === 'awaiting_approval'), now) };
}

const CHUNK = 500;
const INSERT_CHUNK = 40;
const idsOf = (rows: Array<{ id: string } | string>) => rows.map((r) => (typeof r === 'string' ? r : r.id));

/** The default approval of a schedule's actions: when one is destructive, runs wait for the owner. */
export const defaultApproval = (actions: Action[]) => (anyDestructive(actions) ? 'owner_approve' : 'auto');
