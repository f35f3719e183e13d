// Work-task records and their steps, always read within one tenant (the runner reads across tenants).
import type { Knex } from 'knex';
import { paged, type PageRequest } from '../../sdk/db.js';
import type { SqlReader, SqlValue } from '../../sdk/sql.js';
import { WORK_TASK_TERMINAL, type WorkTaskStatus } from './contract.js';

export const TERMINAL = WORK_TASK_TERMINAL;
export type Status = WorkTaskStatus;

export interface ValidationResult {
  task: string;
  command: string;
  exitCode: number;
  ok: boolean;
  output: string;
}

export interface TaskRow {
  id: string;
  tenant_id: string;
  agent_id: string;
  project_id: string;
  description: string;
  status: Status;
  repo_dir: string;
  repo_slug: string | null;
  branch: string | null;
  base_branch: string | null;
  worktree_dir: string | null;
  work_project_id: string | null;
  session_id: string | null;
  session_after: number | null;
  iteration: number;
  validation: string | null;
  pr_url: string | null;
  pr_number: number | null;
  pr_state: string | null;
  failure_reason: string | null;
  summary: string | null;
  created_by: string;
  runner: string | null;
  heartbeat_at: number | string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface Step {
  seq: number;
  status: string;
  message: string;
  at: string;
}

export function isTerminal(status: string): boolean {
  return (TERMINAL as readonly string[]).includes(status);
}

/** The public shape of a task. */
export function toTask(row: TaskRow) {
  return {
    id: row.id,
    agentId: row.agent_id,
    projectId: row.project_id,
    description: row.description,
    status: row.status,
    branch: row.branch,
    baseBranch: row.base_branch,
    repo: row.repo_slug,
    sessionId: row.session_id,
    iteration: row.iteration,
    validation: row.validation ? (JSON.parse(row.validation) as ValidationResult[]) : [],
    pr: row.pr_url ? { url: row.pr_url, number: row.pr_number, state: row.pr_state } : null,
    prUrl: row.pr_url,
    failureReason: row.failure_reason,
    summary: row.summary,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}
export type WorkTask = ReturnType<typeof toTask>;

export class TaskStore {
  constructor(
    private readonly db: Knex,
    private readonly sql: SqlReader,
  ) {}

  async create(input: { id: string; tenantId: string; agentId: string; projectId: string; description: string; repoDir: string; repoSlug: string; branch: string; createdBy: string; idempotencyKey?: string }): Promise<TaskRow> {
    const now = new Date().toISOString();
    await this.db('work_tasks').insert({
      id: input.id, tenant_id: input.tenantId, agent_id: input.agentId, project_id: input.projectId, description: input.description, status: 'queued',
      repo_dir: input.repoDir, repo_slug: input.repoSlug, branch: input.branch, iteration: 0, created_by: input.createdBy, created_at: now, updated_at: now,
      idempotency_key: input.idempotencyKey ?? null,
    });
    return (await this.byId(input.id))!;
  }

  byId(id: string): Promise<TaskRow | undefined> {
    return this.sql.get<TaskRow>('SELECT * FROM work_tasks WHERE id = ?', [id]);
  }

  get(tenantId: string, id: string): Promise<TaskRow | undefined> {
    return this.sql.get<TaskRow>('SELECT * FROM work_tasks WHERE tenant_id = ? AND id = ?', [tenantId, id]);
  }

  /** The task created earlier with this idempotency key, if any. */
  byIdempotencyKey(tenantId: string, key: string): Promise<TaskRow | undefined> {
    return this.sql.get<TaskRow>('SELECT * FROM work_tasks WHERE tenant_id = ? AND idempotency_key = ?', [tenantId, key]);
  }

  bySession(tenantId: string, sessionId: string): Promise<TaskRow | undefined> {
    return this.sql.get<TaskRow>('SELECT * FROM work_tasks WHERE tenant_id = ? AND session_id = ?', [tenantId, sessionId]);
  }

  async list(tenantId: string, filter: { agentId?: string; status?: string }, page: PageRequest) {
    let from = 'work_tasks WHERE tenant_id = ?';
    const params: SqlValue[] = [tenantId];
    if (filter.agentId) (from += ' AND agent_id = ?'), params.push(filter.agentId);
    if (filter.status) (from += ' AND status = ?'), params.push(filter.status);
    const { rows, total, hasMore } = await paged<TaskRow>(this.sql, { from, params, orderBy: 'created_at DESC, id' }, page);
    return { tasks: rows.map(toTask), ...(total === undefined ? {} : { total }), hasMore };
  }

  /** Tasks not yet ended, oldest first: what the runner may have to drive. */
  open(): Promise<TaskRow[]> {
    return this.sql.all<TaskRow>(`SELECT * FROM work_tasks WHERE status NOT IN (${TERMINAL.map(() => '?').join(', ')}) ORDER BY created_at, id`, [...TERMINAL]);
  }

  /** Takes the task for this runner when nobody drives it or its driver's heartbeat is older than `staleBefore`. */
  async claim(id: string, runner: string, now: number, staleBefore: number): Promise<boolean> {
    const n = await this.db('work_tasks')
      .where({ id })
      .whereNotIn('status', [...TERMINAL])
      .andWhere((q) => q.whereNull('runner').orWhere('runner', runner).orWhere('heartbeat_at', '<', staleBefore))
      .update({ runner, heartbeat_at: now });
    return n > 0;
  }

  async heartbeat(ids: string[], runner: string, now: number): Promise<void> {
    if (ids.length > 0) await this.db('work_tasks').whereIn('id', ids).andWhere({ runner }).update({ heartbeat_at: now });
  }

  /** Lets the tasks go that this runner still holds: the next scan (of any runner) may claim them at once. */
  async release(ids: string[], runner: string): Promise<void> {
    if (ids.length > 0) await this.db('work_tasks').whereIn('id', ids).andWhere({ runner }).update({ runner: null, heartbeat_at: null });
  }

  async update(id: string, patch: Partial<TaskRow>): Promise<void> {
    await this.db('work_tasks').where({ id }).update({ ...patch, updated_at: new Date().toISOString() });
  }

  /** Moves a task that has not ended to `status`; false when it had ended (a cancel won the race). */
  async transition(id: string, status: Status, patch: Partial<TaskRow> = {}): Promise<boolean> {
    const now = new Date().toISOString();
    const ended = isTerminal(status) ? { completed_at: now, runner: null } : {};
    const n = await this.db('work_tasks').where({ id }).whereNotIn('status', [...TERMINAL]).update({ ...patch, ...ended, status, updated_at: now });
    return n > 0;
  }

  async step(taskId: string, status: string, message: string): Promise<Step> {
    const at = new Date().toISOString();
    const [inserted] = await this.db('work_task_steps').insert({ task_id: taskId, status, message: message.slice(0, 8000), at }, ['seq']);
    const seq = typeof inserted === 'object' ? Number((inserted as { seq: number }).seq) : Number(inserted);
    return { seq, status, message, at };
  }

  steps(taskId: string): Promise<Step[]> {
    return this.sql.all<Step>('SELECT seq, status, message, at FROM work_task_steps WHERE task_id = ? ORDER BY seq', [taskId]);
  }
}
