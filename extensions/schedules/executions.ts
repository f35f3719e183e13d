// Execution records. An execution is written before it starts (queued, or awaiting_approval), so a
// crash never loses one; its run_key makes each (schedule, due time) run at most once.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../_shared/db.js';
import type { SqlReader, SqlValue } from '../_shared/sql.js';
import type { Action } from './actions.js';

export type ExecutionStatus = 'awaiting_approval' | 'queued' | 'running' | 'succeeded' | 'failed' | 'denied' | 'cancelled';
export type Trigger = 'schedule' | 'missed' | 'manual';

export interface Execution {
  id: string;
  tenantId: string;
  scheduleId: string;
  dueAt: string;
  trigger: Trigger;
  status: ExecutionStatus;
  action: Action;
  result: unknown;
  errorCode: string | null;
  error: string | null;
  sessionId: string | null;
  cost: number;
  durationMs: number | null;
  resolvedBy: string | null;
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
  error_code: string | null;
  error: string | null;
  session_id: string | null;
  cost_micro: number | string;
  duration_ms: number | null;
  claimed_by: string | null;
  resolved_by: string | null;
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
  action: Action;
  awaitingApproval: boolean;
  /** Manual runs outside the schedule's times get a key of their own. */
  runKey?: string;
}

export const runKeyOf = (scheduleId: string, dueAt: Date) => `${scheduleId}@${dueAt.toISOString()}`;

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
    status: e.awaitingApproval ? 'awaiting_approval' : 'queued',
    action: JSON.stringify(e.action),
    result: null,
    error_code: null,
    error: null,
    session_id: null,
    cost_micro: 0,
    duration_ms: null,
    claimed_by: null,
    resolved_by: null,
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
  return {
    id: row.id,
    tenantId: row.tenant_id,
    scheduleId: row.schedule_id,
    dueAt: row.due_at,
    trigger: row.trigger,
    status: row.status,
    action: JSON.parse(row.action) as Action,
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    errorCode: row.error_code,
    error: row.error,
    sessionId: row.session_id,
    cost: Number(row.cost_micro),
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    resolvedBy: row.resolved_by,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    updatedAt: row.updated_at,
  };
}
