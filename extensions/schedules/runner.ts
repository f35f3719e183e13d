// Running executions: claim queued ones (at most maxConcurrent running at once over every instance),
// perform their action, record the outcome, and keep each schedule's failure count (a schedule is
// paused after failureLimit failures in a row). Only the leader starts executions, and never while the
// operational mode is paused; an old leader finishes what it started, its heartbeat showing it alive.
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { costOfFailure, stopEffect } from '../../sdk/effects.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Started } from './actions.js';
import { announceExecution, announceSchedule } from './announce.js';
import type { Clock } from './clock.js';
import type { SchedulerConfig } from './config.js';
import { runActions, type ActionResult } from './sequence.js';
import { ExecutionStore, toExecution, type Execution, type ExecutionRow } from './executions.js';
import { ScheduleStore, type Schedule } from './store.js';
import { sessionsClient } from '../sessions/contract.js';

/** How often (real time) an instance running executions says it is alive: well within the expiry. */
const heartbeatMs = (config: SchedulerConfig) => Math.min(5_000, (config.instanceExpirySeconds * 1000) / 3);
/** The scheduler_state row whose lock makes count-and-claim one step over every instance. */
const DISPATCH_LOCK = 'dispatch_lock';
const heartbeatKey = (instanceId: string) => `instance:${instanceId}`;

export interface RunnerHooks {
  /** After an execution ended: the wake-on-start flag may change. */
  afterRun(): void;
  /** Whether this instance may start executions now (it leads; the mode is not paused). */
  mayDispatch(): boolean;
}

export class Runner {
  /** Executions this instance runs now, to abort on cancel. */
  private readonly running = new Map<string, AbortController>();
  private readonly cancelling = new Set<string>();
  /** The extension is stopping: runs cut short now stay `running`, for the next start to mark INTERRUPTED. */
  private stopping = false;
  private dispatching: Promise<void> | undefined;
  private again = false;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: ExtensionContext,
    private readonly config: SchedulerConfig,
    private readonly clock: Clock,
    private readonly instanceId: string,
    private readonly hooks: RunnerHooks,
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

  /** Aborts a cancelled run if this instance runs it (its action stops at its next step). */
  abort(executionId: string): void {
    const controller = this.running.get(executionId);
    if (!controller) return;
    this.cancelling.add(executionId);
    controller.abort();
  }

  /**
   * Stops starting runs; those in flight end as they can (see `stopping`). Its heartbeat goes, so
   * another instance interrupts them at once instead of after instanceExpirySeconds.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.heartbeat);
    await this.ctx.db('scheduler_state').where({ key: heartbeatKey(this.instanceId) }).delete().catch(() => undefined);
  }

  /**
   * Which of these instances are gone. On SQLite one server owns the data, so any other instance is a
   * process that stopped; on PostgreSQL, one whose heartbeat is missing or older than instanceExpirySeconds.
   */
  async goneInstances(instances: string[]): Promise<string[]> {
    if (this.ctx.init.storage?.client !== 'pg') return instances;
    const rows = (await this.ctx.db('scheduler_state').whereIn('key', instances.map(heartbeatKey))) as Array<{ key: string; value: string }>;
    const seen = new Map(rows.map((r) => [r.key, Number(r.value)]));
    const oldest = Date.now() - this.config.instanceExpirySeconds * 1000;
    return instances.filter((id) => (seen.get(heartbeatKey(id)) ?? 0) < oldest);
  }

  private async pass(): Promise<void> {
    if (this.stopping || !this.hooks.mayDispatch()) return;
    const rows = await this.claim();
    for (const row of rows) void this.run(toExecution(row));
  }

  /**
   * Counts the running executions and claims queued ones up to maxConcurrent as one step: on
   * PostgreSQL under a row lock every instance takes (two leaders for a moment cannot both fill the
   * free slots); SQLite has one writer.
   */
  private claim(): Promise<ExecutionRow[]> {
    return this.ctx.db.transaction(async (trx) => {
      if (trx.client.config.client === 'pg') {
        await trx('scheduler_state').insert({ key: DISPATCH_LOCK, value: '' }).onConflict('key').ignore();
        await trx('scheduler_state').where({ key: DISPATCH_LOCK }).forUpdate().first();
      }
      const busy = await trx('schedule_executions').where({ status: 'running' }).count<Array<{ n: number | string }>>({ n: '*' });
      const free = this.config.maxConcurrent - Number(busy[0]?.n ?? 0);
      if (free <= 0) return [];
      const queued = await trx('schedule_executions').where({ status: 'queued' }).orderBy('created_at').orderBy('id').limit(free).select('id');
      if (queued.length === 0) return [];
      const now = this.clock.now().toISOString();
      await this.beat(trx);
      return trx<ExecutionRow>('schedule_executions').whereIn('id', queued.map((r: { id: string }) => r.id)).where({ status: 'queued' })
        .update({ status: 'running', claimed_by: this.instanceId, started_at: now, updated_at: now }).returning('*') as Promise<ExecutionRow[]>;
    });
  }

  /**
   * Says this instance is alive (real time): with each claim, and every heartbeatMs while it runs
   * executions. Only PostgreSQL needs it (goneInstances).
   */
  private async beat(db: Knex = this.ctx.db): Promise<void> {
    if (this.ctx.init.storage?.client !== 'pg') return;
    await db('scheduler_state').insert({ key: heartbeatKey(this.instanceId), value: String(Date.now()) }).onConflict('key').merge();
    this.heartbeat ??= setInterval(() => {
      if (this.running.size === 0) return;
      void this.beat().catch((err: Error) => this.ctx.host.log('warn', `schedules: heartbeat failed: ${err.message}`));
    }, heartbeatMs(this.config)).unref();
  }

  private async run(execution: Execution): Promise<void> {
    const controller = new AbortController();
    this.running.set(execution.id, controller);
    const started = performance.now();
    const timer = setTimeout(() => controller.abort(), this.config.executionTimeoutSeconds * 1000);
    let finished: Awaited<ReturnType<Runner['finish']>> | undefined;
    let effect: Started | undefined;
    const ended = () => ({ duration_ms: Math.round(performance.now() - started), finished_at: this.clock.now().toISOString() });
    /** The execution failed with `err` (undefined: the extension is stopping, see `stopping`). */
    const fail = async (err: unknown, cost: number, results?: ActionResult[]) => {
      if (this.stopping) return undefined;
      const error = toRoostError(err);
      // Aborted without a cancel, or the wait itself gave up: the timeout passed.
      const timedOut = (controller.signal.aborted && !this.cancelling.has(execution.id)) || error.code === 'TIMEOUT';
      if ((controller.signal.aborted || timedOut) && effect) await this.stopStarted(execution.tenantId, effect);
      const failedAt = results?.find((r) => r.status === 'failed' && !execution.actions[r.index]!.continueOnError) ?? results?.findLast((r) => r.status === 'failed');
      const which = execution.actions.length > 1 && failedAt ? `actions.${failedAt.index} (${failedAt.type}): ` : '';
      return this.finish(execution, 'failed', {
        error_code: timedOut ? 'TIMEOUT' : error.code,
        error: timedOut ? `the ${execution.actions.length > 1 ? 'actions' : 'action'} ran over ${this.config.executionTimeoutSeconds} s` : `${which}${error.message}`,
        cost_micro: Math.max(0, Math.round(cost)),
        ...(results ? { action_results: JSON.stringify(results) } : {}),
        ...ended(),
      });
    };
    try {
      // A cancel that came between the claim and now found no run here to abort: it is seen here.
      if (!(await this.stillRunning(execution.id))) return;
      announceExecution(this.ctx.host, execution);
      const outcome = await runActions(execution.actions, execution.id, {
        host: this.ctx.host,
        tenantId: execution.tenantId,
        signal: controller.signal,
        timeoutMs: this.config.executionTimeoutSeconds * 1000,
        onStarted: async (what) => {
          effect = what;
          if (!(await this.recordStarted(execution.id, what))) {
            this.cancelling.add(execution.id);
            controller.abort();
            throw new RoostError('CANCELLED', 'the execution was cancelled as its action started');
          }
        },
      }, (results) => this.saveResults(execution.id, results));
      if (outcome.failure) {
        finished = await fail(outcome.failure.error, outcome.cost, outcome.results);
        if (!finished && this.stopping) return;
      } else {
        // One action: its result, as before lists existed; several: each one's, in order.
        const result = execution.actions.length === 1 ? outcome.results[0]!.result : outcome.results.map((r) => r.result);
        finished = await this.finish(execution, 'succeeded', { result: JSON.stringify(result ?? null), action_results: JSON.stringify(outcome.results), cost_micro: outcome.cost, ...ended() });
      }
    } catch (err) {
      finished = await fail(err, costOfFailure(err));
      if (!finished && this.stopping) return;
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
    if (this.running.size === 0) this.hooks.afterRun();
    void this.dispatch().catch((err: Error) => this.ctx.host.log('warn', `schedules: dispatch failed: ${err.message}`));
  }

  /** Each action's outcome so far, for readers of a running execution (kept when it was cancelled too). */
  private async saveResults(id: string, results: ActionResult[]): Promise<void> {
    await this.ctx.db('schedule_executions').where({ id }).update({ action_results: JSON.stringify(results) });
  }

  private async stillRunning(id: string): Promise<boolean> {
    return (await this.ctx.db('schedule_executions').where({ id, status: 'running', claimed_by: this.instanceId }).first('id')) !== undefined;
  }

  /**
   * Stores what the running action started, unless the execution was cancelled meanwhile: false then.
   * With several actions it holds the latest one's (what a cancel stops); each result keeps its own.
   */
  private async recordStarted(id: string, what: Started): Promise<boolean> {
    const patch = what.kind === 'session' ? { session_id: what.id, effect_kind: null, effect_id: null } : { session_id: null, effect_kind: what.kind, effect_id: what.id };
    return (await this.ctx.db('schedule_executions').where({ id, status: 'running' }).update(patch)) > 0;
  }

  /** What a cancelled or timed-out run started is stopped (a cancel's route stops it too, if it knew it). */
  private async stopStarted(tenantId: string, what: Started): Promise<void> {
    if (what.kind !== 'session') return stopEffect(this.ctx.host, { tenantId }, what.kind, what.id);
    const reply = await sessionsClient(this.ctx.host, { tenantId }).stop(what.id).catch(() => undefined);
    if (!reply || (reply.status >= 400 && reply.status !== 409)) this.ctx.host.log('warn', `schedules: stopping session ${what.id} answered ${reply?.status ?? 'nothing'}`);
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
