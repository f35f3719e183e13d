// Drives work tasks: a scan claims the open tasks nobody drives (new ones, and those whose runner's
// heartbeat went stale: a restart or a dead instance), a heartbeat renews what this process drives
// and its repository locks, and every end of a task (done, failed, cancelled, escalated) goes through
// finish(): the record, the clean-up, the lock, and the `work_tasks.outcome` event.
import { randomUUID } from 'node:crypto';
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Config } from './config.js';
import { removeWorktree } from './git.js';
import { RepoLocks } from './lock.js';
import { runTask } from './loop.js';
import { TaskEnded } from './task-ended.js';
import { isTerminal, TaskStore, toTask, type Status, type TaskRow } from './store.js';
import { WORK_TASKS_EVENTS, type WorkTaskOutcome } from './contract.js';
import { ProjectsClient } from '../projects/contract.js';
import { sessionsClient } from '../sessions/contract.js';

/** Thrown inside a task's run when the task ended elsewhere (cancelled, escalated): the run just stops. */
export class Engine {
  readonly runnerId = randomUUID();
  readonly store: TaskStore;
  readonly locks: RepoLocks;
  private readonly driving = new Map<string, AbortController>();
  /** Each driven task's run, settled (it never rejects): stop() waits for them before letting the tasks go. */
  private readonly runs = new Map<string, Promise<void>>();
  /** WebSocket clients that created a task: they get its updates without subscribing. */
  private readonly creators = new Map<string, Set<string>>();
  private timers: NodeJS.Timeout[] = [];
  private scanning: Promise<void> | undefined;
  private again = false;
  private awake = false;
  private stopping = false;

  constructor(readonly ctx: ExtensionContext, readonly config: Config) {
    this.store = new TaskStore(ctx.db, ctx.sql);
    this.locks = new RepoLocks(ctx.db);
  }

  start(): void {
    this.timers.push(setInterval(() => this.scan(), this.config.scanIntervalMs));
    this.timers.push(setInterval(() => void this.beat(), Math.max(500, this.config.lockTtlMs / 3)));
    for (const t of this.timers) t.unref();
    this.scan();
  }

  /**
   * Stops driving: the runs are aborted and, once they have wound down, the tasks are let go (no runner, no
   * heartbeat), so the next server, or another instance, takes them up at its first scan instead of waiting
   * for this runner's heartbeat to go stale (a lock TTL: a minute by default). After kill -9 that wait stays.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    await this.scanning; // a scan under way may still claim a task: it is driven, then let go with the rest
    const ids = [...this.driving.keys()];
    for (const controller of this.driving.values()) controller.abort();
    // A run stuck past its abort keeps its claim: the tasks are then taken up once the heartbeat is stale.
    const settled = await Promise.race([Promise.all(this.runs.values()).then(() => true), new Promise<false>((resolve) => setTimeout(resolve, 1_000, false))]);
    if (!settled) return;
    await this.store.release(ids, this.runnerId).catch((err: Error) => this.ctx.host.log('warn', `work-tasks: letting the tasks go failed: ${err.message}`));
  }

  watch(taskId: string, clientId: string): void {
    const set = this.creators.get(taskId) ?? new Set<string>();
    this.creators.set(taskId, set.add(clientId));
  }

  /** Looks for tasks to drive now (coalesced: a scan asked for during one runs once after it). */
  scan(): void {
    if (this.stopping) return; // a run aborted by stop() must not be taken up again by this process
    if (this.scanning) {
      this.again = true;
      return;
    }
    this.scanning = this.scanOnce()
      .catch((err: Error) => this.ctx.host.log('warn', `work-tasks scan failed: ${err.message}`))
      .finally(() => {
        this.scanning = undefined;
        if (this.again) {
          this.again = false;
          this.scan();
        }
      });
  }

  private async scanOnce(): Promise<void> {
    const open = await this.store.open();
    this.ctx.host.queueDepth('queued', open.filter((t) => t.status === 'queued').length);
    await this.wake(open.length > 0);
    const now = Date.now();
    // Tasks already past their start first: they hold (or held) their repository's lock.
    const ordered = [...open.filter((t) => t.status !== 'queued'), ...open.filter((t) => t.status === 'queued')];
    for (const row of ordered) {
      if (this.stopping) return;
      if (this.driving.has(row.id)) continue;
      if (!(await this.store.claim(row.id, this.runnerId, now, now - this.config.lockTtlMs))) continue;
      if (!(await this.locks.acquire(row.repo_dir, row.id, now, this.config.lockTtlMs))) {
        await this.store.update(row.id, { runner: null, heartbeat_at: null });
        continue;
      }
      this.drive(row);
    }
  }

  private drive(row: TaskRow): void {
    const controller = new AbortController();
    this.driving.set(row.id, controller);
    const run = runTask(this, row.id, controller.signal)
      .catch(async (err: unknown) => {
        // Aborted: the task ended elsewhere, or this process is shutting down (another run resumes it).
        if (err instanceof TaskEnded || controller.signal.aborted) return;
        const reason = err instanceof Error ? err.message : String(err);
        const current = await this.store.byId(row.id);
        if (current) await this.finish(current, 'failed', { failure_reason: reason }, `failed: ${reason}`);
      })
      .catch((err: Error) => this.ctx.host.log('error', `work task ${row.id}: ${err.stack ?? err.message}`))
      .finally(() => {
        this.driving.delete(row.id);
        this.runs.delete(row.id);
        this.scan();
      });
    this.runs.set(row.id, run);
  }

  private async beat(): Promise<void> {
    const ids = [...this.driving.keys()];
    const now = Date.now();
    await this.store.heartbeat(ids, this.runnerId, now).catch(() => undefined);
    await this.locks.renew(ids, now, this.config.lockTtlMs).catch(() => undefined);
  }

  /** Asks the host to start this extension with the server while tasks are open. */
  private async wake(open: boolean): Promise<void> {
    if (open === this.awake) return;
    this.awake = open;
    await this.ctx.host.wakeOnStart(open).catch((err: Error) => this.ctx.host.log('warn', `wake_on_start failed: ${err.message}`));
  }

  /** Moves a running task on; throws TaskEnded when it ended meanwhile. */
  async advance(row: TaskRow, status: Status, patch: Partial<TaskRow>, message: string): Promise<TaskRow> {
    if (!(await this.store.transition(row.id, status, patch))) throw new TaskEnded();
    const next = (await this.store.byId(row.id))!;
    await this.announce(next, message);
    return next;
  }

  async announce(row: TaskRow, message: string): Promise<void> {
    const step = await this.store.step(row.id, row.status, message);
    const update = { type: 'work_task_update', workTaskId: row.id, status: row.status, step, task: toTask(row) };
    this.ctx.host.emit(`work-task.${row.id}`, update, row.tenant_id);
    for (const clientId of this.creators.get(row.id) ?? []) this.ctx.host.wsSend(clientId, update);
    if (isTerminal(row.status)) this.creators.delete(row.id);
  }

  /** Ends a task: false when it had ended already. */
  async finish(row: TaskRow, status: Status, patch: Partial<TaskRow>, message: string): Promise<boolean> {
    if (!(await this.store.transition(row.id, status, patch))) return false;
    this.driving.get(row.id)?.abort();
    const ended = (await this.store.byId(row.id))!;
    await this.announce(ended, message);
    await this.cleanUp(ended);
    await this.locks.release(row.id);
    this.outcome(ended);
    this.ctx.host.audit(`work_task.${status}`, `work-task:${ended.id}`, { agentId: ended.agent_id, prUrl: ended.pr_url, failureReason: ended.failure_reason });
    this.scan();
    return true;
  }

  /** `work_tasks.outcome`: when the task ends, and again when its pull request is merged or closed. */
  outcome(row: TaskRow): void {
    const outcome: WorkTaskOutcome = {
      taskId: row.id, agentId: row.agent_id, tenantId: row.tenant_id, status: row.status,
      merged: row.pr_state === 'merged', prUrl: row.pr_url, failureReason: row.failure_reason, repo: row.repo_slug, branch: row.branch, prState: row.pr_state,
    };
    this.ctx.host.emit(WORK_TASKS_EVENTS.outcome, outcome, row.tenant_id);
  }

  /** The code host said a pull request was merged or closed: the completed tasks that opened it record it. */
  async pullState(tenantId: string, repo: string, number: number, state: string): Promise<number> {
    const rows = await this.ctx.db<TaskRow>('work_tasks').where({ tenant_id: tenantId, repo_slug: repo, pr_number: number, status: 'completed' });
    for (const row of rows) {
      if (row.pr_state === state) continue;
      await this.store.update(row.id, { pr_state: state });
      const next = (await this.store.byId(row.id))!;
      await this.announce(next, `pull request ${state}`);
      this.outcome(next);
    }
    return rows.length;
  }

  async cancel(row: TaskRow): Promise<TaskRow> {
    if (!(await this.finish(row, 'cancelled', { failure_reason: 'cancelled' }, 'cancelled'))) {
      throw new RoostError('CONFLICT', `work task ${row.id} has ended already (${(await this.store.byId(row.id))?.status})`);
    }
    return (await this.store.byId(row.id))!;
  }

  /** The session stopped, the task's project removed, the worktree removed (its branch stays). */
  private async cleanUp(row: TaskRow): Promise<void> {
    const as = { tenantId: row.tenant_id };
    const quietly = (p: Promise<unknown>) => p.catch((err: Error) => this.ctx.host.log('warn', `work task ${row.id} clean-up: ${err.message}`));
    if (row.session_id) await quietly(sessionsClient(this.ctx.host, as).stop(row.session_id));
    if (row.work_project_id) await quietly(new ProjectsClient(this.ctx.host).remove(row.work_project_id, as));
    if (row.worktree_dir) await quietly(removeWorktree(row.repo_dir, row.worktree_dir));
  }
}
