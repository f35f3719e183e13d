// One live session: its state machine and timers. Its runner lives in a RunnerSlot; its turns are
// driven by turns.ts. Transitions (start, pause, resume, stop) run one at a time, so a stop that
// races a pause, or a resume that races a timeout, always ends in one consistent state.
import { conflict, RoostError, toRoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { ApprovalBroker } from './approvals.js';
import { MAX_EXTENSION_MINUTES, resumeDelayMs, type InstanceConfig } from './config.js';
import type { Credits } from './credits.js';
import { SessionLog, streamMessage, type SessionEvent } from './event-log.js';
import type { RunnerPool } from './runner-pool.js';
import { RunnerSlot, type StartReason } from './runner-slot.js';
import { LIVE, pendingOf, toView, type PendingInput, type SessionRow, type SessionStatus, type SessionStore } from './store.js';
import { pump } from './turns.js';
import { SESSION_TOPICS } from './contract.js';

export interface RuntimeDeps {
  ctx: ExtensionContext;
  store: SessionStore;
  broker: ApprovalBroker;
  credits: Credits;
  config: InstanceConfig;
  pool: RunnerPool;
  /** Also deliver this session's messages to someone not subscribed (a chat client). */
  forward(runtime: SessionRuntime, message: { type: string } & Record<string, unknown>): void;
  /** The session reached a final state; the manager forgets it. */
  settled(runtime: SessionRuntime): void;
}

type Final = 'stopped' | 'timeout' | 'error';
/** setTimeout overflows past 24.8 days; longer waits re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class SessionRuntime {
  readonly slot = new RunnerSlot(this);
  busy = false;
  closing = false;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private resumeTimer: NodeJS.Timeout | undefined;
  private transitions: Promise<unknown> = Promise.resolve();
  private staged: Partial<SessionRow> = {};
  readonly log: SessionLog;
  /** The prompt the session was started with, while this process runs it: what its memories are chosen by. */
  firstPrompt: string | undefined;

  private constructor(readonly deps: RuntimeDeps, public row: SessionRow, log: SessionLog) {
    this.log = log;
  }

  /** `fresh`: a session created just now, with no events stored yet. */
  static async load(deps: RuntimeDeps, row: SessionRow, fresh = false): Promise<SessionRuntime> {
    let runtime: SessionRuntime | undefined;
    const publish = (event: SessionEvent) => runtime?.publish(event);
    const log = fresh ? SessionLog.fresh(deps.ctx.db, row.id, publish) : await SessionLog.open(deps.ctx.db, row.id, publish);
    runtime = new SessionRuntime(deps, row, log);
    return runtime;
  }

  get id(): string {
    return this.row.id;
  }

  get tenantId(): string {
    return this.row.tenant_id;
  }

  get pending(): PendingInput[] {
    return pendingOf(this.row);
  }

  view() {
    return toView(this.row, { pid: this.slot.pid, busy: this.busy, contextTurns: this.slot.contextTurns });
  }

  async save(patch: Partial<SessionRow>): Promise<void> {
    const stamped = { ...this.staged, ...patch, updated_at: new Date().toISOString() };
    this.staged = {};
    Object.assign(this.row, stamped);
    await this.deps.store.patch(this.id, stamped);
  }

  /** A change seen at once in the row, stored with the next save (a runner's start is followed by one). */
  stage(patch: Partial<SessionRow>): void {
    Object.assign(this.row, patch);
    Object.assign(this.staged, patch);
  }

  record(type: string, data: Record<string, unknown> = {}, when?: Date): SessionEvent {
    return this.log.append(type, data, this.row.turns + 1, when);
  }

  /** A message for whoever watches this session (subscribers of session.{id}, a chat client). */
  announce(message: { type: string } & Record<string, unknown>): void {
    this.deps.ctx.host.emit(SESSION_TOPICS.stream(this.id), message, this.tenantId);
    this.deps.forward(this, message);
  }

  /** A user turn (paid for in advance when it comes with a reservation); answered now if the session is running, else when it runs again. */
  async enqueue(content: string, reservationId?: string): Promise<number> {
    const event = this.record('user_message', { content });
    await this.save({ pending_inputs: JSON.stringify([...this.pending, { content, seq: event.seq, ...(reservationId ? { reservationId } : {}) }]) });
    if (this.row.status === 'running') void pump(this);
    return event.seq;
  }

  /** created → running (or back to running after a server restart). */
  start(reason: StartReason): Promise<void> {
    return this.exclusive(() => this.run(reason));
  }

  stop(status: Final, code: string | null = null, reason: string | null = null): Promise<void> {
    return this.exclusive(() => this.end(status, code, reason));
  }

  /** Provider outage or no credits: no runner until the next resume, tried 5, 15, 45, then every 60 units. */
  pause(code: string, reason: string): Promise<void> {
    return this.exclusive(async () => {
      if (this.row.status !== 'running' || this.closing) return;
      this.clearTimers();
      const attempts = this.row.resume_attempts + 1;
      const delayMs = resumeDelayMs(attempts, this.row.resume_unit_ms);
      const now = new Date(); // one clock reading, so the event's at + delayMs is exactly its nextResumeAt
      const next = new Date(now.getTime() + delayMs).toISOString();
      this.record('pause', { code, reason, attempt: attempts, delayMs, nextResumeAt: next }, now);
      const patch = { timeout_remaining_ms: this.remainingTimeout(), timeout_at: null, resume_attempts: attempts, next_resume_at: next };
      Object.assign(this.row, patch, { status: 'paused', status_code: code, status_reason: reason }); // seen at once by a turn in flight
      this.deps.broker.cancelSession(this.id, 'the session paused');
      await this.slot.kill();
      await this.save(patch);
      await this.setStatus('paused', code, reason);
      this.armResume();
    });
  }

  /** paused (or timeout, error) → resumed → running. A timed-out or failed session gets a fresh window. */
  resume(trigger: 'manual' | 'auto'): Promise<void> {
    return this.exclusive(async () => {
      const from = this.row.status;
      if (from !== 'paused' && from !== 'timeout' && from !== 'error') throw conflict(`session ${this.id} is ${from}; only a paused, timed-out or failed session can be resumed`);
      this.clearTimers();
      await this.save({ next_resume_at: null, ...(from === 'paused' ? {} : { timeout_remaining_ms: null }) });
      this.record('resume', { trigger, from });
      await this.setStatus('resumed');
      await this.run('resume');
    });
  }

  async extendTimeout(minutes: number): Promise<string> {
    if (!(minutes > 0 && minutes <= MAX_EXTENSION_MINUTES)) throw new RoostError('VALIDATION_ERROR', `minutes must be more than 0 and at most ${MAX_EXTENSION_MINUTES}`);
    const ms = Math.round(minutes * 60_000);
    if (this.row.status === 'paused') {
      await this.save({ timeout_remaining_ms: (this.row.timeout_remaining_ms ?? 0) + ms });
    } else if (this.row.status === 'running' && this.row.timeout_at) {
      await this.save({ timeout_at: new Date(Date.parse(this.row.timeout_at) + ms).toISOString() });
      this.armTimeout();
    } else throw conflict(`session ${this.id} is ${this.row.status}: there is no timeout to extend`);
    this.record('timeout_extended', { minutes, timeoutAt: this.row.timeout_at });
    return this.row.timeout_at ?? new Date(Date.now() + (this.row.timeout_remaining_ms ?? 0)).toISOString();
  }

  /** The server stops: the runner goes, the state stays (running sessions resume on the next start). */
  async shutdown(): Promise<void> {
    this.closing = true;
    this.clearTimers();
    if (this.row.status === 'running' && this.row.timeout_at) await this.save({ timeout_remaining_ms: this.remainingTimeout() });
    await this.slot.kill();
    await this.log.flush();
  }

  /** Something went wrong outside a transition: the session ends in `error` (cancellations aside). */
  fail(err: unknown): Promise<void> {
    return this.exclusive(() => this.failed(err));
  }

  /** The runner died on its own. A turn in flight fails by itself and turns.ts retries it; an idle session recovers here. */
  runnerCrashed(): void {
    if (this.busy || this.row.status !== 'running') return;
    void this.exclusive(async () => {
      if (!this.slot.noteCrash()) return this.crashedOut();
      try {
        await this.slot.ensure('crash');
      } catch (err) {
        return this.failed(err);
      }
      void pump(this);
    });
  }

  /** Past the crash budget (a turn's runner died once too often): the session goes to `error`. */
  crashLimitReached(): Promise<void> {
    return this.exclusive(() => this.crashedOut());
  }

  private crashedOut(): Promise<void> {
    return this.end('error', 'RUNNER_CRASHED', `the agent runner crashed ${this.slot.crashCount} times within a minute without completing a turn`);
  }

  /** Re-arms what a paused session waits for (also after a server restart). */
  armResume(): void {
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    if (this.row.status !== 'paused' || !this.row.next_resume_at) return;
    const left = Date.parse(this.row.next_resume_at) - Date.now();
    this.resumeTimer = setTimeout(() => {
      if (left > MAX_TIMER_MS) return this.armResume();
      this.resume('auto').catch((err) => this.fail(err));
    }, Math.min(Math.max(0, left), MAX_TIMER_MS));
  }

  private async run(reason: StartReason): Promise<void> {
    try {
      await this.slot.ensure(reason);
    } catch (err) {
      return this.failed(err);
    }
    const remaining = this.row.timeout_remaining_ms ?? this.row.timeout_minutes * 60_000;
    const now = Date.now();
    await this.save({ timeout_at: new Date(now + remaining).toISOString(), timeout_remaining_ms: null, started_at: this.row.started_at ?? new Date(now).toISOString(), ended_at: null, status: 'running', status_code: null, status_reason: null });
    this.armTimeout();
    await this.announceStatus('running');
    void pump(this);
  }

  private async end(status: Final, code: string | null, reason: string | null): Promise<void> {
    if (!LIVE.includes(this.row.status)) return;
    this.clearTimers();
    const patch = { ended_at: new Date().toISOString(), next_resume_at: null, timeout_remaining_ms: this.remainingTimeout(), timeout_at: null };
    Object.assign(this.row, patch, { status, status_code: code, status_reason: reason }); // seen at once by a turn in flight
    this.deps.broker.cancelSession(this.id, `the session is ${status}`);
    await this.slot.kill();
    await this.save(patch);
    await this.setStatus(status, code, reason);
    this.deps.settled(this);
  }

  private async failed(err: unknown): Promise<void> {
    const error = toRoostError(err);
    if (error.code === 'INTERNAL') this.deps.ctx.host.log('error', `session ${this.id}: ${err instanceof Error ? err.stack : String(err)}`);
    if (this.closing || error.code === 'CANCELLED') return;
    await this.end('error', error.code, error.code === 'INTERNAL' ? 'the session failed unexpectedly (see the server log)' : error.message);
  }

  private async setStatus(status: SessionStatus, code: string | null = null, reason: string | null = null): Promise<void> {
    await this.save({ status, status_code: code, status_reason: reason });
    await this.announceStatus(status, code, reason);
  }

  /** The status the row already holds, told: recorded, stored, and sent to watchers and the bus. */
  private async announceStatus(status: SessionStatus, code: string | null = null, reason: string | null = null): Promise<void> {
    this.record('status', { status, code, reason });
    await this.log.flush();
    this.announce({ type: 'session_status', sessionId: this.id, status, code, reason });
    // Tenant-wide lifecycle, for analytics and the activity feed (they never see the token stream).
    this.deps.ctx.host.emit(SESSION_TOPICS.lifecycle, { session: toView(this.row, null) }, this.tenantId);
  }

  /** Announces the new session (its row was stored with status `created`) before it starts. */
  async created(): Promise<void> {
    await this.announceStatus('created');
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.transitions.then(fn, fn);
    this.transitions = run.catch(() => undefined);
    return run;
  }

  private armTimeout(): void {
    if (this.timeoutTimer) clearTimeout(this.timeoutTimer);
    if (!this.row.timeout_at) return;
    const left = Date.parse(this.row.timeout_at) - Date.now();
    this.timeoutTimer = setTimeout(() => {
      if (left > MAX_TIMER_MS) return this.armTimeout();
      void this.stop('timeout', 'SESSION_TIMEOUT', `the session ran out of time (timeout ${this.row.timeout_minutes} min; svc_extend_timeout adds more)`);
    }, Math.min(Math.max(0, left), MAX_TIMER_MS));
  }

  private clearTimers(): void {
    if (this.timeoutTimer) clearTimeout(this.timeoutTimer);
    if (this.resumeTimer) clearTimeout(this.resumeTimer);
    this.timeoutTimer = this.resumeTimer = undefined;
  }

  private remainingTimeout(): number | null {
    return this.row.timeout_at ? Math.max(0, Date.parse(this.row.timeout_at) - Date.now()) : this.row.timeout_remaining_ms;
  }

  private publish(event: SessionEvent): void {
    this.announce(streamMessage(this.id, event));
  }
}
