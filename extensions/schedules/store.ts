// Schedule records, always read and written within one tenant.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader, SqlValue } from '../../sdk/sql.js';
import { decodeActions, encodeActions, type Action } from './actions.js';

export type Approval = 'auto' | 'owner_approve';
export type MissedPolicy = 'skip' | 'run_once' | 'run_all';
export type ScheduleStatus = 'active' | 'paused';

export interface Schedule {
  id: string;
  tenantId: string;
  agentId: string | null;
  name: string;
  description: string;
  cron: string | null;
  timezone: string;
  intervalSeconds: number | null;
  /** The first of `actions`: what a single-action schedule runs, as before lists existed. */
  action: Action;
  /** What each run does, in order (a create with `action` makes a list of one). */
  actions: Action[];
  approval: Approval;
  /** How long a run waits for approval before it expires; null: the scheduler's default. */
  approvalWindowSeconds: number | null;
  missedPolicy: MissedPolicy;
  status: ScheduleStatus;
  pausedReason: string | null;
  consecutiveFailures: number;
  nextRunAt: string | null;
  lastRunAt: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface ScheduleRow {
  id: string;
  tenant_id: string;
  agent_id: string | null;
  name: string;
  description: string;
  cron: string | null;
  timezone: string;
  interval_seconds: number | null;
  action: string;
  approval: Approval;
  approval_window_seconds: number | null;
  missed_policy: MissedPolicy;
  status: ScheduleStatus;
  paused_reason: string | null;
  consecutive_failures: number;
  next_run_at: string | null;
  last_run_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export type ScheduleFields = Omit<Schedule, 'action' | 'id' | 'tenantId' | 'consecutiveFailures' | 'lastRunAt' | 'createdBy' | 'createdAt' | 'updatedAt'>;

export class ScheduleStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async list(tenantId: string, page: PageRequest & { agentId?: string }): Promise<{ schedules: Schedule[]; total?: number; hasMore: boolean }> {
    const params: SqlValue[] = page.agentId ? [tenantId, page.agentId] : [tenantId];
    const from = `schedules WHERE tenant_id = ?${page.agentId ? ' AND agent_id = ?' : ''}`;
    const { rows, total, hasMore } = await paged<ScheduleRow>(this.sql, { from, params, orderBy: 'created_at, id' }, page);
    return { schedules: rows.map(toSchedule), ...(total === undefined ? {} : { total }), hasMore };
  }

  async get(tenantId: string, id: string, db: Knex = this.db): Promise<Schedule | undefined> {
    const row = await db<ScheduleRow>('schedules').where({ tenant_id: tenantId, id }).first();
    return row && toSchedule(row);
  }

  async create(tenantId: string, actor: string, fields: ScheduleFields, now: Date): Promise<Schedule> {
    const at = now.toISOString();
    const row: ScheduleRow = { ...toRow(fields), id: randomUUID(), tenant_id: tenantId, consecutive_failures: 0, last_run_at: null, created_by: actor, created_at: at, updated_at: at };
    await this.db('schedules').insert(row);
    return toSchedule(row);
  }

  /** `resetFailures`: a resume, or a change of what runs or when, starts the failure count again. */
  async update(tenantId: string, id: string, fields: ScheduleFields, now: Date, options: { db?: Knex; resetFailures?: boolean } = {}): Promise<Schedule | undefined> {
    const db = options.db ?? this.db;
    const patch: Partial<ScheduleRow> = { ...toRow(fields), updated_at: now.toISOString() };
    if (options.resetFailures) patch.consecutive_failures = 0;
    const n = await db('schedules').where({ tenant_id: tenantId, id }).update(patch);
    return n > 0 ? this.get(tenantId, id, db) : undefined;
  }

  async remove(tenantId: string, id: string, db: Knex = this.db): Promise<boolean> {
    const n = await db('schedules').where({ tenant_id: tenantId, id }).delete();
    if (n > 0) await db('schedule_executions').where({ tenant_id: tenantId, schedule_id: id }).whereIn('status', ['queued', 'awaiting_approval']).update({ status: 'cancelled', error: 'the schedule was deleted', updated_at: new Date().toISOString() });
    return n > 0;
  }

  /** Whether anything is left for the scheduler to do: an active schedule or an unfinished execution. */
  async hasWork(): Promise<boolean> {
    const schedule = await this.db('schedules').where({ status: 'active' }).first('id');
    if (schedule) return true;
    return (await this.db('schedule_executions').whereIn('status', ['queued', 'awaiting_approval', 'running']).first('id')) !== undefined;
  }
}

function toRow(f: ScheduleFields): Omit<ScheduleRow, 'id' | 'tenant_id' | 'consecutive_failures' | 'last_run_at' | 'created_by' | 'created_at' | 'updated_at'> {
  return {
    agent_id: f.agentId,
    name: f.name,
    description: f.description,
    cron: f.cron,
    timezone: f.timezone,
    interval_seconds: f.intervalSeconds,
    action: encodeActions(f.actions),
    approval: f.approval,
    approval_window_seconds: f.approvalWindowSeconds,
    missed_policy: f.missedPolicy,
    status: f.status,
    paused_reason: f.pausedReason,
    next_run_at: f.nextRunAt,
  };
}

export function toSchedule(row: ScheduleRow): Schedule {
  const actions = decodeActions(row.action);
  return {
    id: row.id,
    tenantId: row.tenant_id,
    agentId: row.agent_id,
    name: row.name,
    description: row.description,
    cron: row.cron,
    timezone: row.timezone,
    intervalSeconds: row.interval_seconds === null ? null : Number(row.interval_seconds),
    action: actions[0]!,
    actions,
    approval: row.approval,
    approvalWindowSeconds: row.approval_window_seconds === null || row.approval_window_seconds === undefined ? null : Number(row.approval_window_seconds),
    missedPolicy: row.missed_policy,
    status: row.status,
    pausedReason: row.paused_reason,
    consecutiveFailures: Number(row.consecutive_failures),
    nextRunAt: row.next_run_at,
    lastRunAt: row.last_run_at,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
