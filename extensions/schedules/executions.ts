// Execution records. An execution is written before it starts (queued, or awaiting_approval), so a
// crash never loses one; its run_key makes each (schedule, due time) run at most once. A run waiting
// for approval expires at its `expires_at`, or when a newer run of its schedule comes to wait.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader, SqlValue } from '../../sdk/sql.js';
import { decodeActions, encodeActions, type Action } from './actions.js';
import type { ActionResult } from './sequence.js';

export type ExecutionStatus = 'awaiting_approval' | 'queued' | 'running' | 'succeeded' | 'failed' | 'denied' | 'cancelled' | 'expired';
/** What an execution started in another extension and waits on (besides a session). */
export type EffectKind = 'council' | 'work_task' | 'workflow';
export type Trigger = 'schedule' | 'missed' | 'manual';

export interface Execution {
  id: string;
  tenantId: string;
  scheduleId: string;
  dueAt: string;
  trigger: Trigger;
  status: ExecutionStatus;
  /** The first of `actions`: what a single-action schedule runs, as before lists existed. */
  action: Action;
  /** The actions it runs, in order, as the schedule said when it was recorded. */
  actions: Action[];
  /** One action: what it answered. Several: what each answered, in order (null for one that did not succeed). */
  result: unknown;
  /** Each action's outcome, filled in as the run goes; empty before it runs. */
  results: ActionResult[];
  errorCode: string | null;
  error: string | null;
  sessionId: string | null;
  /** The council launch, work task or workflow run it started: `{kind, id}`. */
  effect: { kind: EffectKind; id: string } | null;
  cost: number;
  durationMs: number | null;
  resolvedBy: string | null;
  /** While awaiting approval: when it expires unanswered. */
  expiresAt: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
}

export interface ExecutionRow {
  id: string;
  tenant_id: string;
  schedule_id: string;
  run_key: string;
  due_at: string;
  trigger: Trigger;
  status: ExecutionStatus;
  action: string;
  result: string | null;
  action_results: string | null;
  error_code: string | null;
  error: string | null;
  session_id: string | null;
  effect_kind: EffectKind | null;
  effect_id: string | null;
  cost_micro: number | string;
  duration_ms: number | null;
  claimed_by: string | null;
  resolved_by: string | null;
  expires_at: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export interface NewExecution {
  tenantId: string;
  scheduleId: string;
  dueAt: Date;
  trigger: Trigger;
  actions: Action[];
  /** When set, the run waits for approval until then. */
  approvalUntil: Date | null;
  /** Manual runs outside the schedule's times get a key of their own. */
  runKey?: string;
}

export const runKeyOf = (scheduleId: string, dueAt: Date) => `${scheduleId}@${dueAt.toISOString()}`;

/** Until when a run recorded `now` waits for approval: its schedule's window, or the default one. */
export function approvalUntil(schedule: { approval: string; approvalWindowSeconds: number | null }, defaultSeconds: number, now: Date): Date | null {
  return schedule.approval === 'owner_approve' ? new Date(now.getTime() + (schedule.approvalWindowSeconds ?? defaultSeconds) * 1000) : null;
}

const ended = (now: Date) => ({ finished_at: now.toISOString(), updated_at: now.toISOString() });

/**
 * Only the latest run of a schedule waits for approval: when runs are recorded waiting, the older ones
 * of their schedules expire (SUPERSEDED), so approvals never pile up and an old answer never runs a
 * stale action. Returns the rows it expired.
 */
export async function supersede(trx: Knex.Transaction, waiting: ExecutionRow[], now: Date): Promise<ExecutionRow[]> {
  const latest = new Map<string, ExecutionRow>();
  for (const row of waiting) {
    const kept = latest.get(row.schedule_id);
    if (!kept || row.due_at > kept.due_at) latest.set(row.schedule_id, row);
  }
  const expired: ExecutionRow[] = [];
  for (const row of latest.values()) {
    const older = await trx<ExecutionRow>('schedule_executions').where({ schedule_id: row.schedule_id, status: 'awaiting_approval' }).whereNot({ id: row.id });
    if (older.length === 0) continue;
    const patch = { status: 'expired' as const, error_code: 'SUPERSEDED', error: `a newer run of the schedule (due ${row.due_at}) waits for approval instead`, ...ended(now) };
    const n = await trx('schedule_executions').whereIn('id', older.map((o) => o.id)).where({ status: 'awaiting_approval' }).update(patch);
    if (n > 0) expired.push(...older.map((o) => ({ ...o, ...patch })));
  }
  return expired;
}

/** Runs whose approval window passed unanswered (scheduler clock): expired, APPROVAL_EXPIRED. */
export async function expireUnanswered(db: Knex, now: Date): Promise<ExecutionRow[]> {
  const due = await db<ExecutionRow>('schedule_executions').where({ status: 'awaiting_approval' }).where('expires_at', '<=', now.toISOString()).limit(500);
  const expired: ExecutionRow[] = [];
  for (const row of due) {
    const patch = { status: 'expired' as const, error_code: 'APPROVAL_EXPIRED', error: `nobody approved the run before ${row.expires_at}; it will not run`, ...ended(now) };
    if ((await db('schedule_executions').where({ id: row.id, status: 'awaiting_approval' }).update(patch)) > 0) expired.push({ ...row, ...patch });
  }
  return expired;
}

/** A row ready to insert (with onConflict('run_key').ignore(), in the caller's transaction). */
export function executionRow(e: NewExecution, now: Date): ExecutionRow {
  const at = now.toISOString();
  return {
    id: randomUUID(),
    tenant_id: e.tenantId,
    schedule_id: e.scheduleId,
    run_key: e.runKey ?? runKeyOf(e.scheduleId, e.dueAt),
    due_at: e.dueAt.toISOString(),
    trigger: e.trigger,
    status: e.approvalUntil ? 'awaiting_approval' : 'queued',
    action: encodeActions(e.actions),
    result: null,
    action_results: null,
    error_code: null,
    error: null,
    session_id: null,
    effect_kind: null,
    effect_id: null,
    cost_micro: 0,
    duration_ms: null,
    claimed_by: null,
    resolved_by: null,
    expires_at: e.approvalUntil ? e.approvalUntil.toISOString() : null,
    created_at: at,
    started_at: null,
    finished_at: null,
    updated_at: at,
  };
}

export class ExecutionStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async list(tenantId: string, page: PageRequest & { scheduleId?: string; status?: string }): Promise<{ executions: Execution[]; total?: number; hasMore: boolean }> {
    let from = 'schedule_executions WHERE tenant_id = ?';
    const params: SqlValue[] = [tenantId];
    if (page.scheduleId) (from += ' AND schedule_id = ?'), params.push(page.scheduleId);
    if (page.status) (from += ' AND status = ?'), params.push(page.status);
    const { rows, total, hasMore } = await paged<ExecutionRow>(this.sql, { from, params, orderBy: 'created_at DESC, id' }, page);
    return { executions: rows.map(toExecution), ...(total === undefined ? {} : { total }), hasMore };
  }

  async get(tenantId: string, id: string): Promise<Execution | undefined> {
    const row = await this.db<ExecutionRow>('schedule_executions').where({ tenant_id: tenantId, id }).first();
    return row && toExecution(row);
  }

  async byKey(runKey: string): Promise<Execution | undefined> {
    const row = await this.db<ExecutionRow>('schedule_executions').where({ run_key: runKey }).first();
    return row && toExecution(row);
  }

  /** Moves an execution from one of `from` to `to` with `patch`; false when it was no longer in `from`. */
  async transition(id: string, from: ExecutionStatus[], to: ExecutionStatus, patch: Partial<ExecutionRow>, now: Date): Promise<Execution | undefined> {
    const n = await this.db('schedule_executions').where({ id }).whereIn('status', from).update({ ...patch, status: to, updated_at: now.toISOString() });
    if (n === 0) return undefined;
    const row = await this.db<ExecutionRow>('schedule_executions').where({ id }).first();
    return row && toExecution(row);
  }
}

export function toExecution(row: ExecutionRow): Execution {
  const actions = decodeActions(row.action);
  return {
    id: row.id,
    tenantId: row.tenant_id,
    scheduleId: row.schedule_id,
    dueAt: row.due_at,
    trigger: row.trigger,
    status: row.status,
    action: actions[0]!,
    actions,
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    results: row.action_results ? (JSON.parse(row.action_results) as ActionResult[]) : [],
    errorCode: row.error_code,
    error: row.error,
    sessionId: row.session_id,
    effect: row.effect_kind && row.effect_id ? { kind: row.effect_kind, id: row.effect_id } : null,
    cost: Number(row.cost_micro),
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    resolvedBy: row.resolved_by,
    expiresAt: row.expires_at ?? null,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    updatedAt: row.updated_at,
  };
}
