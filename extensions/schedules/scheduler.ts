// The scheduler: a singleton across instances (it asks the kernel `leader('scheduler')` on every tick;
// on PostgreSQL one instance holds the advisory lock). Each tick of the leader records the runs of due
// schedules, expires runs whose approval window passed, and starts queued executions (only the leader
// starts any). Executions left `running` by a process that is gone are marked failed with code
// INTERRUPTED: never run again, since their action may already have had its effect (a session started,
// a task created) and a run must not happen twice. Gone means: on SQLite, any other process (there is
// one server); on PostgreSQL, an instance whose heartbeat stopped — an old leader still alive keeps
// running what it started.
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import type { ExtensionContext } from '../../sdk/extension.js';
import { announceExecution } from './announce.js';
import type { Clock } from './clock.js';
import type { SchedulerConfig } from './config.js';
import { expireUnanswered, toExecution, type ExecutionRow } from './executions.js';
import { recordDue } from './planner.js';
import { Runner } from './runner.js';
import { ScheduleStore, type ScheduleRow } from './store.js';

const BATCH = 200;

export interface TickStats {
  leader: boolean;
  ticks: number;
  lastTickAt: string | null;
  /** How late (real time) the last tick started after it was meant to. */
  tickLagMs: number | null;
  /** How long the last tick took. */
  tickDurationMs: number | null;
  /** How overdue (scheduler clock) the oldest due schedule was when the last tick found it. */
  dueLagMs: number | null;
  executionsRecorded: number;
  interrupted: number;
}

export class Scheduler {
  readonly instanceId = randomUUID();
  readonly runner: Runner;
  readonly stats: TickStats = { leader: false, ticks: 0, lastTickAt: null, tickLagMs: null, tickDurationMs: null, dueLagMs: null, executionsRecorded: 0, interrupted: 0 };
  operationalMode = 'normal';
  private timer: NodeJS.Timeout | undefined;
  private expectedAt = 0;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  private awake: boolean | undefined;

  constructor(
    private readonly ctx: ExtensionContext,
    readonly config: SchedulerConfig,
    readonly clock: Clock,
  ) {
    this.runner = new Runner(ctx, config, clock, this.instanceId, {
      afterRun: () => void this.syncWake(),
      mayDispatch: () => this.stats.leader && !this.stopped && this.operationalMode !== 'paused',
    });
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await this.runner.stop();
  }

  /** A tick soon (after a trigger, an approval), unless one is running. */
  kick(): void {
    void this.tickNow().catch((err: Error) => this.ctx.host.log('warn', `schedules: tick failed: ${err.message}`));
  }

  /** A tick now, after the one running (if any) ends; resolves when it is done. */
  async tickNow(): Promise<void> {
    await this.ticking;
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.expectedAt = performance.now();
    await this.runTick();
  }

  /** Keeps the kernel's wake-on-start flag true while there is anything to run, so the server starts us. */
  async syncWake(): Promise<void> {
    const wake = await new ScheduleStore(this.ctx.db, this.ctx.sql).hasWork();
    if (wake === this.awake) return;
    this.awake = wake;
    await this.ctx.host.wakeOnStart(wake).catch((err: Error) => this.ctx.host.log('warn', `schedules: wake_on_start failed: ${err.message}`));
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.expectedAt = performance.now() + delayMs;
    this.timer = setTimeout(() => void this.runTick(), delayMs);
  }

  /** One tick at a time; the next is timed from the end of this one. */
  private runTick(): Promise<void> {
    return (this.ticking ??= this.tick()
      .catch((err: Error) => this.ctx.host.log('error', `schedules: tick failed: ${err.stack ?? err.message}`))
      .finally(() => {
        this.ticking = undefined;
        this.schedule(this.config.tickMs);
      }));
  }

  private async tick(): Promise<void> {
    const began = performance.now();
    const lag = began - this.expectedAt;
    const leading = await this.ctx.host.leader('scheduler');
    this.stats.leader = leading;
    if (!leading) return;
    await this.recover();
    const now = this.clock.now();
    await this.planDue(now);
    for (const row of await expireUnanswered(this.ctx.db, now)) announceExecution(this.ctx.host, toExecution(row));
    await this.runner.dispatch();
    this.stats.ticks++;
    this.stats.lastTickAt = now.toISOString();
    this.stats.tickLagMs = Math.max(0, Math.round(lag));
    this.stats.tickDurationMs = Math.round(performance.now() - began);
  }

  /** Records the runs of every due schedule, a batch per transaction. */
  private async planDue(now: Date): Promise<void> {
    const at = now.toISOString();
    let oldest: string | null = null;
    for (;;) {
      const due = await this.ctx.db<ScheduleRow>('schedules').where({ status: 'active' }).where('next_run_at', '<=', at).orderBy('next_run_at').limit(BATCH);
      if (due.length === 0) break;
      oldest ??= due[0]!.next_run_at;
      const { inserted, superseded } = await this.ctx.db.transaction((trx) => recordDue(trx, due, now, this.config));
      this.stats.executionsRecorded += inserted.length;
      for (const row of [...superseded, ...inserted]) announceExecution(this.ctx.host, toExecution(row));
      if (due.length < BATCH) break;
    }
    this.stats.dueLagMs = oldest ? now.getTime() - Date.parse(oldest) : null;
  }

  /** Executions left running by a process that is gone: failed, INTERRUPTED (see the top of this file). */
  private async recover(): Promise<void> {
    const others = (await this.ctx.db('schedule_executions').where({ status: 'running' }).whereNot({ claimed_by: this.instanceId }).distinct('claimed_by')) as Array<{ claimed_by: string | null }>;
    if (others.length === 0) return;
    const gone = await this.runner.goneInstances(others.map((o) => o.claimed_by ?? ''));
    if (gone.length === 0) return;
    const now = this.clock.now().toISOString();
    const orphans = await this.ctx.db<ExecutionRow>('schedule_executions').where({ status: 'running' }).whereIn('claimed_by', gone);
    for (const orphan of orphans) {
      const patch = { status: 'failed' as const, error_code: 'INTERRUPTED', error: 'the server running this execution stopped; it is not retried (its action may have had effects)', finished_at: now, updated_at: now };
      const n = await this.ctx.db('schedule_executions').where({ id: orphan.id, status: 'running' }).update(patch);
      if (n === 0) continue;
      this.stats.interrupted++;
      announceExecution(this.ctx.host, toExecution({ ...orphan, ...patch }));
    }
    if (orphans.length > 0) this.ctx.host.log('warn', `schedules: ${orphans.length} execution(s) of a stopped server marked failed (INTERRUPTED)`);
  }
}
