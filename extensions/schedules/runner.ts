// Running executions: claim queued ones (at most maxConcurrent running at once over every instance),
// perform their action, record the outcome, and keep each schedule's failure count (a schedule is
// paused after failureLimit failures in a row).
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { toRoostError } from '../../protocol/errors.js';
import { claim } from '../../protocol/claim.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { perform } from './actions.js';
import { announceExecution, announceSchedule } from './announce.js';
import type { Clock } from './clock.js';
import type { SchedulerConfig } from './config.js';
import { ExecutionStore, toExecution, type Execution, type ExecutionRow } from './executions.js';
import { ScheduleStore, type Schedule } from './store.js';

export class Runner {
  /** Executions this instance runs now, to abort on cancel. */
  private readonly running = new Map<string, AbortController>();
  private readonly cancelling = new Set<string>();
  /** The extension is stopping: runs cut short now stay `running`, for the next start to mark INTERRUPTED. */
  private stopping = false;
  private dispatching: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly ctx: ExtensionContext,
    private readonly config: SchedulerConfig,
    private readonly clock: Clock,
    private readonly instanceId: string,
    private readonly afterRun: () => void,
  ) {}

  /** Starts what may start now; calls made while one pass runs fold into one more pass. */
  dispatch(): Promise<void> {
    if (this.dispatching) {
      this.again = true;
      return this.dispatching;
    }
    this.dispatching = (async () => {
      do {
        this.again = false;
        await this.pass();
      } while (this.again);
    })().finally(() => (this.dispatching = undefined));
    return this.dispatching;
  }

  /** Aborts a cancelled run of this instance (its action stops at its next step). */
  abort(executionId: string): void {
    const controller = this.running.get(executionId);
    if (!controller) return;
    this.cancelling.add(executionId);
    controller.abort();
  }

  /** Stops starting runs; those in flight end as they can (see `stopping`). */
  stop(): void {
    this.stopping = true;
  }

  private async pass(): Promise<void> {
    if (this.stopping) return;
    const busy = await this.ctx.db('schedule_executions').where({ status: 'running' }).count<Array<{ n: number | string }>>({ n: '*' });
    const free = this.config.maxConcurrent - Number(busy[0]?.n ?? 0);
    if (free <= 0) return;
    const now = this.clock.now().toISOString();
    const rows = await claim<ExecutionRow>(this.ctx.db, {
      table: 'schedule_executions',
      where: { status: 'queued' },
      set: { status: 'running', claimed_by: this.instanceId, started_at: now, updated_at: now },
      orderBy: 'created_at',
      limit: free,
    });
    for (const row of rows) void this.run(toExecution(row));
  }

  private async run(execution: Execution): Promise<void> {
    const controller = new AbortController();
    this.running.set(execution.id, controller);
    announceExecution(this.ctx.host, execution);
    const started = performance.now();
    const timer = setTimeout(() => controller.abort(), this.config.executionTimeoutSeconds * 1000);
    let finished: Awaited<ReturnType<Runner['finish']>>;
    let sessionId: string | undefined;
    try {
      const outcome = await perform(execution.action, {
        host: this.ctx.host,
        tenantId: execution.tenantId,
        signal: controller.signal,
        timeoutMs: this.config.executionTimeoutSeconds * 1000,
        onSession: async (started) => {
          sessionId = started;
          await this.ctx.db('schedule_executions').where({ id: execution.id }).update({ session_id: started });
        },
      });
      finished = await this.finish(execution, 'succeeded', {
        result: JSON.stringify(outcome.result ?? null),
        cost_micro: Math.max(0, Math.round(outcome.cost)),
        duration_ms: Math.round(performance.now() - started),
        finished_at: this.clock.now().toISOString(),
      });
    } catch (err) {
      if (this.stopping) return;
      const error = toRoostError(err);
      // Aborted without a cancel: the timeout fired.
      const timedOut = controller.signal.aborted && !this.cancelling.has(execution.id);
      if (controller.signal.aborted && sessionId) await this.stopSession(execution.tenantId, sessionId);
      finished = await this.finish(execution, 'failed', {
        error_code: timedOut ? 'TIMEOUT' : error.code,
        error: timedOut ? `the action ran over ${this.config.executionTimeoutSeconds} s` : error.message,
        duration_ms: Math.round(performance.now() - started),
        finished_at: this.clock.now().toISOString(),
      });
    } finally {
      clearTimeout(timer);
      this.running.delete(execution.id);
      this.cancelling.delete(execution.id);
    }
    // undefined: cancelled (or marked interrupted) meanwhile; that path announced it.
    if (finished) {
      announceExecution(this.ctx.host, finished.execution);
      if (finished.paused) announceSchedule(this.ctx.host, finished.paused, 'paused');
    }
    if (this.running.size === 0) this.afterRun();
    void this.dispatch().catch((err: Error) => this.ctx.host.log('warn', `schedules: dispatch failed: ${err.message}`));
  }

  /** A cancel that came while the session was starting (before the route could see its id) still stops it. */
  private async stopSession(tenantId: string, sessionId: string): Promise<void> {
    const reply = await this.ctx.host.call('POST', `/api/sessions/${encodeURIComponent(sessionId)}/stop`, {}, { tenantId }).catch(() => undefined);
    if (!reply || (reply.status >= 400 && reply.status !== 409)) this.ctx.host.log('warn', `schedules: stopping session ${sessionId} answered ${reply?.status ?? 'nothing'}`);
  }

  /**
   * Records the outcome and the schedule's failure count in one transaction, so whoever reads the run
   * as finished also reads the count (and the pause) it caused. Undefined when the run was no longer
   * running (cancelled or marked interrupted meanwhile).
   */
  private async finish(execution: Execution, to: 'succeeded' | 'failed', patch: Partial<ExecutionRow>): Promise<{ execution: Execution; paused?: Schedule } | undefined> {
    return this.ctx.db.transaction(async (trx) => {
      const finished = await new ExecutionStore(trx, this.ctx.sql).transition(execution.id, ['running'], to, patch, this.clock.now());
      if (!finished) return undefined;
      const paused = await this.count(trx, finished);
      return { execution: finished, paused };
    });
  }

  /** Success resets the schedule's failure count; the failureLimit-th failure in a row pauses it. */
  private async count(trx: Knex.Transaction, execution: Execution): Promise<Schedule | undefined> {
    const now = this.clock.now().toISOString();
    if (execution.status === 'succeeded') {
      await trx('schedules').where({ id: execution.scheduleId }).update({ consecutive_failures: 0, last_run_at: now });
      return undefined;
    }
    await trx('schedules').where({ id: execution.scheduleId }).increment('consecutive_failures', 1).update({ last_run_at: now });
    const paused = await trx('schedules')
      .where({ id: execution.scheduleId, status: 'active' })
      .where('consecutive_failures', '>=', this.config.failureLimit)
      .update({ status: 'paused', paused_reason: `paused after ${this.config.failureLimit} consecutive failures (last: ${execution.error ?? execution.errorCode})`, next_run_at: null, updated_at: now });
    return paused > 0 ? new ScheduleStore(trx, this.ctx.sql).get(execution.tenantId, execution.scheduleId) : undefined;
  }
}
