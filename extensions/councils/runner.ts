// Runs launches stage by stage in this process: responding → discussing → (by hand when auto is off)
// reviewing → synthesizing → completed; aborted and failed end a launch from any stage. Every move is
// compare-and-set on the stored stage, stored with its stage-change event in one transaction, and the
// state on disk is all a restarted server needs to take a launch up again at its stage.
import { conflict, notFound, toRoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { EventLog, type EventInput } from './event-log.js';
import { ACTIVE_STAGES, LaunchStore, type Launch, type LaunchPatch, type Stage, type StageState } from './launch-store.js';
import { stopSession } from './members.js';
import { breakdownOf } from './prompts.js';
import { StageWork } from './stages.js';
import { COUNCILS_EVENTS, type CouncilOutcome } from './contract.js';

/** The stage that follows each working stage. */
const NEXT: Record<string, Stage> = { responding: 'discussing', discussing: 'reviewing', reviewing: 'synthesizing', synthesizing: 'completed' };
/** The stage a hand-moved launch must be waiting in. */
const BEFORE: Record<'reviewing' | 'synthesizing', Stage> = { reviewing: 'discussing', synthesizing: 'reviewing' };

/** The extension's running state: what setup returns, handed to every route and tool after ctx. */
export class LaunchRunner {
  private readonly live = new Map<string, AbortController>();
  /** Launches moved on (by hand) while their loop was still winding down: run again once it has ended. */
  private readonly again = new Set<string>();
  private readonly store: LaunchStore;
  private readonly events: EventLog;
  private stopping = false;
  private awake = false;

  constructor(private readonly ctx: ExtensionContext) {
    this.store = new LaunchStore(ctx.db, ctx.sql);
    this.events = new EventLog(ctx);
  }

  /** Announces a new launch's first stage and starts it. */
  async begin(launch: Launch): Promise<void> {
    await this.events.append(launch, { type: 'stage_change', stage: 'responding', previousStage: null });
    this.run(launch);
  }

  /** At start-up, the launches whose stage was under way go on where they were (one instance takes them). */
  async resumeAll(): Promise<void> {
    if (!(await this.ctx.host.leader('councils.resume'))) return;
    for (const launch of await this.store.running()) {
      await this.log(launch, 'info', `the server restarted; the launch goes on in stage ${launch.stage}`);
      this.run(launch);
    }
    await this.syncWake();
  }

  async shutdown(): Promise<void> {
    this.stopping = true;
    for (const controller of this.live.values()) controller.abort();
  }

  async abort(tenantId: string, id: string): Promise<Launch> {
    const launch = await this.mustGet(tenantId, id);
    if (!ACTIVE_STAGES.includes(launch.stage)) throw conflict(`launch ${id} is ${launch.stage}; only a launch in progress can be aborted`);
    if (!(await this.move(launch, { stage: launch.stage }, 'aborted', 'done', {}, 'aborted by request'))) return this.abort(tenantId, id);
    this.live.get(id)?.abort();
    await this.release(await this.mustGet(tenantId, id));
    return this.mustGet(tenantId, id);
  }

  /** review / synthesize: the launch must be waiting at the end of the stage before. */
  async advance(tenantId: string, id: string, to: 'reviewing' | 'synthesizing'): Promise<Launch> {
    const launch = await this.mustGet(tenantId, id);
    const needed = BEFORE[to];
    if (launch.stage !== needed || launch.stageState !== 'waiting') {
      const state = ACTIVE_STAGES.includes(launch.stage) ? (launch.stageState === 'running' ? ' (still running)' : ' (waiting)') : '';
      throw conflict(`launch ${id} is in stage ${launch.stage}${state}; ${to === 'reviewing' ? 'review' : 'synthesize'} needs a finished ${needed} stage`);
    }
    if (!(await this.move(launch, { stage: needed, state: 'waiting' }, to, 'running', {}, 'moved on by hand'))) return this.advance(tenantId, id, to);
    const moved = await this.mustGet(tenantId, id);
    this.run(moved);
    return moved;
  }

  private run(launch: Launch): void {
    if (this.stopping) return;
    if (this.live.has(launch.id)) {
      this.again.add(launch.id);
      return;
    }
    const controller = new AbortController();
    this.live.set(launch.id, controller);
    void this.syncWake();
    void this.loop(launch.tenantId, launch.id, controller.signal)
      .catch((err: Error) => this.ctx.host.log('error', `launch ${launch.id}: ${err.stack ?? err.message}`))
      .finally(() => {
        this.live.delete(launch.id);
        if (this.again.delete(launch.id)) this.run(launch);
        void this.syncWake();
      });
  }

  /** For outcome statistics (the feedback extension): how far the members agreed, the largest side of the valid votes. */
  private async announceOutcome(launch: Launch, work: StageWork): Promise<void> {
    const b = breakdownOf(await work.votes(launch));
    const valid = b.approve + b.reject + b.abstain;
    const agreement = valid > 0 ? Math.max(b.approve, b.reject, b.abstain) / valid : 0;
    this.ctx.host.emit(COUNCILS_EVENTS.outcome, { launchId: launch.id, councilId: launch.councilId, agreement, breakdown: b } satisfies CouncilOutcome, launch.tenantId);
  }

  private async loop(tenantId: string, id: string, signal: AbortSignal): Promise<void> {
    const work = new StageWork(this.ctx, signal);
    for (;;) {
      const launch = await this.store.get(tenantId, id);
      if (!launch || launch.stageState !== 'running' || !ACTIVE_STAGES.includes(launch.stage) || signal.aborted) return;
      const from = { stage: launch.stage, state: 'running' as StageState };
      try {
        if (launch.stage === 'synthesizing') {
          const { result, synthesizerId, sessionId } = await work.synthesizing(launch);
          if (await this.move(launch, from, 'completed', 'done', { result, synthesizer_id: synthesizerId, synthesis_session_id: sessionId, synthesis_after: null })) {
            await this.release(launch, sessionId);
            await this.announceOutcome(launch, work);
          }
          return;
        }
        await work[launch.stage as 'responding' | 'discussing' | 'reviewing'](launch);
      } catch (err) {
        if (signal.aborted) return;
        const error = toRoostError(err);
        await this.log(launch, 'error', `the council failed in stage ${launch.stage}: ${error.message}`);
        if (await this.move(launch, { stage: launch.stage }, 'failed', 'done', { error: error.message }, error.message)) await this.release(launch);
        return;
      }
      if (signal.aborted) return;
      const handOff = !launch.auto && launch.stage !== 'responding';
      const moved = handOff
        ? await this.store.move(launch.id, from, { stage: launch.stage, state: 'waiting' })
        : await this.move(launch, from, NEXT[launch.stage]!, 'running');
      if (handOff && moved) await this.log(launch, 'info', `stage ${launch.stage} is done; ${launch.stage === 'discussing' ? 'review' : 'synthesize'} moves the launch on`);
      if (!moved || handOff) return;
    }
  }

  /** The stage change, stored with its event in one transaction; false when the launch was no longer in `from`. */
  private async move(launch: Launch, from: { stage: Stage; state?: StageState }, stage: Stage, state: StageState, patch: LaunchPatch = {}, reason?: string): Promise<boolean> {
    const input: EventInput = { type: 'stage_change', stage, previousStage: from.stage, ...(reason ? { reason } : {}) };
    const event = await this.ctx.db.transaction(async (trx) => ((await this.store.move(launch.id, from, { stage, state }, patch, trx)) ? this.events.write(launch, input, trx) : undefined));
    if (event) this.events.publish(launch, event);
    return event !== undefined;
  }

  /** An ended launch needs its members' sessions no more: they are stopped, all but the one chat goes on in. */
  private async release(launch: Launch, keep?: string): Promise<void> {
    const current = (await this.store.get(launch.tenantId, launch.id)) ?? launch;
    const sessions = new Set([...current.members.map((m) => m.sessionId), current.synthesisSessionId]);
    sessions.delete(keep ?? null);
    await Promise.all([...sessions].filter((s): s is string => !!s).map((s) => stopSession(this.ctx.host, launch.tenantId, s)));
  }

  private log(launch: Launch, level: 'info' | 'warn' | 'error', message: string) {
    return this.events.append(launch, { type: 'log', stage: launch.stage, level, message });
  }

  private async mustGet(tenantId: string, id: string): Promise<Launch> {
    const launch = await this.store.get(tenantId, id);
    if (!launch) throw notFound(`council launch ${id}`);
    return launch;
  }

  /** While a launch runs here, the kernel starts this lazy extension with the server (so it resumes) and never stops it as idle. */
  private async syncWake(): Promise<void> {
    const wake = this.live.size > 0;
    if (wake === this.awake || this.stopping) return;
    this.awake = wake;
    await this.ctx.host.wakeOnStart(wake).catch((err: Error) => this.ctx.host.log('warn', `wake_on_start failed: ${err.message}`));
  }
}
