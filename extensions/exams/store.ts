// Exam runs and the graded result of each of their tasks, always within one tenant.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Category, Check, ToolCall } from './catalogue.js';

export interface TaskResult {
  taskId: string;
  category: Category;
  status: 'passed' | 'failed' | 'skipped';
  checks: Check[];
  answers: string[];
  toolCalls: ToolCall[];
  sessionId: string | null;
  reason: string | null;
  durationMs: number;
}

export interface ExamRun {
  id: string;
  agentId: string;
  categories: Category[];
  status: 'running' | 'completed' | 'failed';
  /** Passed tasks out of those graded (skipped ones do not count), 0–100; null until completed. */
  score: number | null;
  passed: number;
  failed: number;
  skipped: number;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
  results?: TaskResult[];
}

interface RunRow {
  id: string;
  tenant_id: string;
  agent_id: string;
  categories: string;
  status: ExamRun['status'];
  score: number | null;
  passed: number;
  failed: number;
  skipped: number;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export class ExamStore {
  constructor(private readonly db: Knex) {}

  /** A run held by `runner` (this process), which beats for it until it finishes. */
  async create(tenantId: string, agentId: string, categories: Category[], runner: string): Promise<ExamRun> {
    const row: RunRow = { id: randomUUID(), tenant_id: tenantId, agent_id: agentId, categories: JSON.stringify(categories), status: 'running', score: null, passed: 0, failed: 0, skipped: 0, error: null, created_at: new Date().toISOString(), finished_at: null };
    await this.db('exam_runs').insert({ ...row, runner, heartbeat_at: Date.now() });
    return toRun(row);
  }

  /** This process still sits its running exams. */
  async beat(runner: string, now: number): Promise<void> {
    await this.db('exam_runs').where({ runner, status: 'running' }).update({ heartbeat_at: now });
  }

  async record(runId: string, result: TaskResult): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('exam_results').insert({
        run_id: runId, task_id: result.taskId, category: result.category, status: result.status, checks: JSON.stringify(result.checks),
        answers: JSON.stringify(result.answers), tool_calls: JSON.stringify(result.toolCalls), session_id: result.sessionId, reason: result.reason, duration_ms: result.durationMs,
      });
      await trx('exam_runs').where({ id: runId }).increment(result.status, 1);
    });
  }

  async finish(runId: string, error: string | null): Promise<void> {
    const row = await this.db<RunRow>('exam_runs').where({ id: runId }).first();
    if (!row) return;
    const graded = Number(row.passed) + Number(row.failed);
    await this.db('exam_runs').where({ id: runId }).update({
      status: error ? 'failed' : 'completed',
      score: graded > 0 ? Math.round((Number(row.passed) / graded) * 100) : null,
      error,
      finished_at: new Date().toISOString(),
    });
  }

  /**
   * Runs a stop or crash left running: they cannot be resumed halfway through a session, so they fail.
   * `exclusive` (a database only this process uses, SQLite): every running run is such a one. Shared
   * (PostgreSQL): only those whose runner has not beaten since `staleBefore` — another instance's run in
   * progress is left alone.
   */
  async failInterrupted(options: { exclusive: boolean; staleBefore: number }): Promise<number> {
    return this.db('exam_runs')
      .where({ status: 'running' })
      .modify((q) => (options.exclusive ? q : q.andWhere((w) => w.whereNull('heartbeat_at').orWhere('heartbeat_at', '<', options.staleBefore))))
      .update({ status: 'failed', error: 'the server stopped during the exam; run it again', finished_at: new Date().toISOString() });
  }

  async get(tenantId: string, id: string): Promise<ExamRun | undefined> {
    const row = await this.db<RunRow>('exam_runs').where({ tenant_id: tenantId, id }).first();
    if (!row) return undefined;
    const results = await this.db('exam_results').where({ run_id: id }).orderBy('task_id');
    return { ...toRun(row), results: results.map(toResult) };
  }

  async list(tenantId: string, filter: { agentId?: string; limit: number; offset: number }): Promise<{ runs: ExamRun[]; hasMore: boolean }> {
    const rows = await this.db<RunRow>('exam_runs').where({ tenant_id: tenantId }).modify((q) => (filter.agentId ? q.where({ agent_id: filter.agentId }) : q))
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(filter.limit + 1).offset(filter.offset);
    return { runs: rows.slice(0, filter.limit).map(toRun), hasMore: rows.length > filter.limit };
  }
}

function toRun(row: RunRow): ExamRun {
  return {
    id: row.id, agentId: row.agent_id, categories: JSON.parse(row.categories), status: row.status,
    score: row.score === null ? null : Number(row.score), passed: Number(row.passed), failed: Number(row.failed), skipped: Number(row.skipped),
    error: row.error, createdAt: row.created_at, finishedAt: row.finished_at,
  };
}

function toResult(row: Record<string, any>): TaskResult {
  return {
    taskId: row.task_id, category: row.category, status: row.status, checks: JSON.parse(row.checks), answers: JSON.parse(row.answers),
    toolCalls: JSON.parse(row.tool_calls), sessionId: row.session_id, reason: row.reason, durationMs: Number(row.duration_ms),
  };
}
