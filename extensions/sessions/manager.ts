// All sessions of this server: creating and starting them, finding them within a tenant, the live
// ones in memory (with their runners), and bringing back at start-up what was running at shutdown.
// With several instances on one PostgreSQL database each live session runs on the instance holding
// it (holds.ts); commands for a session held elsewhere travel there over the bus (remote.ts), and
// live sessions whose instance went away are taken over.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { conflict, notFound, RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { CallAs } from '../../sdk/host-client.js';
import { PlanCache, PlansClient } from '../plans/contract.js';
import { resolveProvider } from '../../lib/providers/resolve.js';
import { ApprovalBroker } from './approvals.js';
import { DEFAULTS, instanceConfig, type InstanceConfig } from './config.js';
import { Credits } from './credits.js';
import { EscalationStore, type Escalation } from './escalations.js';
import { SessionHolds } from './holds.js';
import { agentSpec, projectSpec, type AgentSpec } from './lookups.js';
import { RemoteCommands, type Command } from './remote.js';
import { RunnerPool } from './runner-pool.js';
import { SessionRuntime, type RuntimeDeps } from './runtime.js';
import { LIVE, SessionStore, toView, type SessionRow, type SessionView } from './store.js';
import { titleOf } from './title.js';

export interface CreateInput {
  agentId: string;
  projectId?: string;
  initialPrompt?: string;
  /** Credits already reserved (by a council, for its stage) for the turn that answers the initial prompt. */
  reservationId?: string;
  name?: string;
  source?: 'web' | 'chainchat' | 'agent';
  timeoutMinutes?: number;
  turnsPerContext?: number;
  approvalTimeoutSeconds?: number;
  resumeUnitMs?: number;
}

export class SessionManager {
  readonly store: SessionStore;
  readonly escalations: EscalationStore;
  readonly broker: ApprovalBroker;
  readonly config: InstanceConfig;
  readonly remote: RemoteCommands;
  /** The plans a start checks its concurrent-sessions limit against, until plans announces a change (main.ts). */
  readonly plans = new PlanCache();
  private readonly holds: SessionHolds;
  private adopter: NodeJS.Timeout | undefined;
  private readonly runtimes = new Map<string, SessionRuntime>();
  private readonly deps: RuntimeDeps;
  /** Sessions being created or resumed that are not in `runtimes` yet. */
  private arriving = 0;
  /** The kernel's wake-on-start flag as last sent (undefined: not sent since this process started). */
  private awake: boolean | undefined;
  /** Someone wants a session's messages delivered outside its stream (chat). */
  forward: RuntimeDeps['forward'] = () => undefined;

  constructor(private readonly ctx: ExtensionContext) {
    this.config = instanceConfig(ctx);
    this.store = new SessionStore(ctx.db, ctx.sql);
    this.escalations = new EscalationStore(ctx.db, ctx.sql);
    this.broker = new ApprovalBroker(this.escalations, ctx.host, this.config.operationalMode);
    this.broker.onLateGrant = (entry) => void this.lateGrant(entry);
    this.holds = new SessionHolds(ctx.init.storage, (reason) => void this.letGo(reason));
    this.remote = new RemoteCommands(ctx.host);
    this.remote.execute = (tenantId, command) => this.executeRemote(tenantId, command);
    this.deps = {
      ctx,
      store: this.store,
      broker: this.broker,
      credits: new Credits(ctx.host),
      config: this.config,
      pool: new RunnerPool(this.config.pluginDir, this.config.warmRunners),
      forward: (rt, message) => this.forward(rt, message),
      settled: (rt) => {
        this.runtimes.delete(rt.id);
        void this.holds.release(rt.id);
        void this.syncWake();
      },
    };
  }

  create(tenantId: string, as: CallAs, input: CreateInput): Promise<SessionView> {
    return this.arrive(() => this.createLive(tenantId, as, input));
  }

  private async createLive(tenantId: string, as: CallAs, input: CreateInput): Promise<SessionView> {
    // The lookups run at once; a failure is reported in this order: the agent, the project, the plan.
    const [agentLookup, projectLookup, planCheck] = await Promise.allSettled([
      agentSpec(this.ctx.host, as, input.agentId, input.projectId ?? null).then(async (agent) => ({ agent, provider: await resolveProvider(agent.provider, agent.model, (name) => this.ctx.host.secret(name)) })),
      input.projectId ? projectSpec(this.ctx.host, as, input.projectId) : Promise.resolve(null),
      this.store.countActive(tenantId).then((active) => new PlansClient(this.ctx.host, this.plans).requireWithin(tenantId, 'concurrentSessions', active, { tenantId })),
    ]);
    if (agentLookup.status === 'rejected') throw agentLookup.reason;
    if (projectLookup.status === 'rejected') throw projectLookup.reason;
    if (planCheck.status === 'rejected') throw planCheck.reason;
    const { agent, provider } = agentLookup.value;
    const project = projectLookup.value;
    const id = randomUUID();
    const now = new Date().toISOString();
    const row: SessionRow = {
      id,
      tenant_id: tenantId,
      agent_id: agent.id,
      project_id: project?.id ?? null,
      name: input.name ?? (input.initialPrompt ? titleOf(input.initialPrompt) : undefined) ?? `${agent.name} ${now.slice(0, 16).replace('T', ' ')}`,
      source: input.source ?? 'web',
      status: 'created',
      status_code: null,
      status_reason: null,
      provider: agent.provider,
      model: agent.model,
      working_dir: project?.workingDir ?? this.workspaceOf(id),
      timeout_minutes: input.timeoutMinutes ?? DEFAULTS.timeoutMinutes,
      timeout_at: null,
      timeout_remaining_ms: null,
      turns_per_context: input.turnsPerContext ?? DEFAULTS.turnsPerContext,
      approval_timeout_ms: Math.round((input.approvalTimeoutSeconds ?? DEFAULTS.approvalTimeoutSeconds) * 1000),
      resume_unit_ms: input.resumeUnitMs ?? DEFAULTS.resumeUnitMs,
      turns: 0,
      context_resets: 0,
      cost_micro: 0,
      input_tokens: 0,
      output_tokens: 0,
      pending_inputs: '[]',
      continuing: false,
      resume_attempts: 0,
      next_resume_at: null,
      created_at: now,
      updated_at: now,
      started_at: null,
      ended_at: null,
    };
    const rt = await SessionRuntime.load(this.deps, row, true);
    rt.firstPrompt = input.initialPrompt;
    // Its runner starts while the first turn's credits are checked and the session is stored.
    rt.slot.prepare(agent, provider, project);
    let reservationId: string | undefined;
    try {
      reservationId = await this.payFirstTurn(tenantId, id, agent, input.reservationId);
      await this.holds.hold(id); // new: nobody else can hold it
      await this.store.insert(row);
    } catch (err) {
      await rt.slot.abandon();
      if (!project) await rm(row.working_dir, { recursive: true, force: true });
      throw err;
    }
    this.runtimes.set(id, rt);
    await rt.created();
    await rt.start('start');
    if (input.initialPrompt && rt.row.status === 'running') await rt.enqueue(input.initialPrompt, reservationId);
    this.ctx.host.audit('session.created', `session:${id}`, { agentId: agent.id, projectId: row.project_id, source: row.source });
    return rt.view();
  }

  /**
   * A session does not start when credits (or the agent's daily cap) would refuse its first turn; a
   * turn paid for in advance (a claimed reservation, whose id is returned) has shown that already.
   */
  private async payFirstTurn(tenantId: string, sessionId: string, agent: AgentSpec, reservationId: string | undefined): Promise<string | undefined> {
    if (reservationId) return (await this.deps.credits.claim(tenantId, reservationId, { sessionId, agentId: agent.id })) ? reservationId : undefined;
    const probe = await this.deps.credits.reserve(tenantId, { agentId: agent.id, sessionId, provider: agent.provider, model: agent.model });
    if (probe) await this.deps.credits.release(tenantId, probe);
    return undefined;
  }

  /** The live runtime of a session of this tenant, if it has one. */
  live(tenantId: string, id: string): SessionRuntime | undefined {
    const rt = this.runtimes.get(id);
    return rt && rt.tenantId === tenantId ? rt : undefined;
  }

  async view(tenantId: string, id: string): Promise<SessionView> {
    const rt = this.live(tenantId, id);
    if (rt) return rt.view();
    return toView(await this.mustGet(tenantId, id), null);
  }

  async mustGet(tenantId: string, id: string): Promise<SessionRow> {
    const row = this.live(tenantId, id)?.row ?? (await this.store.get(tenantId, id));
    if (!row) throw notFound(`session ${id}`);
    return row;
  }

  async stop(tenantId: string, id: string): Promise<SessionView> {
    const row = await this.mustGet(tenantId, id);
    const rt = this.live(tenantId, id);
    if (this.heldElsewhere(rt, row)) return (await this.toHolder(tenantId, { kind: 'stop', sessionId: id, args: {} })) as SessionView;
    if (!rt || !LIVE.includes(row.status)) throw conflict(`session ${id} is ${row.status}; only a created, running or paused session can be stopped`);
    await rt.stop('stopped', null, 'stopped on request');
    return rt.view();
  }

  async resume(tenantId: string, id: string): Promise<SessionView> {
    const row = await this.mustGet(tenantId, id);
    let rt = this.live(tenantId, id);
    if (!rt) {
      if (row.status !== 'timeout' && row.status !== 'error') throw conflict(`session ${id} is ${row.status}; only a paused, timed-out or failed session can be resumed`);
      if (!(await this.holds.hold(id))) throw conflict(`session ${id} is being resumed by another instance`);
      rt = await this.arrive(async () => {
        const loaded = await SessionRuntime.load(this.deps, row);
        this.runtimes.set(id, loaded);
        return loaded;
      });
    }
    await rt.resume('manual');
    return rt.view();
  }

  /**
   * Live sessions resume when the server starts again, so while there is one (or one on its way) the
   * kernel must start this lazy extension with the server and never stop it as idle: wake_on_start.
   */
  private async arrive<T>(work: () => Promise<T>): Promise<T> {
    this.arriving++;
    try {
      await this.syncWake();
      return await work();
    } finally {
      this.arriving--;
      void this.syncWake();
    }
  }

  private async syncWake(): Promise<void> {
    const wake = this.arriving > 0 || this.runtimes.size > 0;
    if (wake === this.awake) return;
    this.awake = wake;
    await this.ctx.host.wakeOnStart(wake).catch((err: Error) => this.ctx.host.log('warn', `wake_on_start failed: ${err.message}`));
  }

  async send(tenantId: string, id: string, content: string, reservationId?: string): Promise<number> {
    const row = await this.mustGet(tenantId, id);
    const rt = this.live(tenantId, id);
    if (this.heldElsewhere(rt, row)) return (await this.toHolder(tenantId, { kind: 'send', sessionId: id, args: { content, reservationId } })) as number;
    if (!rt || !LIVE.includes(row.status)) throw conflict(`session ${id} is ${row.status}; resume it (or start a new one) to send messages`);
    const paid = reservationId && (await this.deps.credits.claim(tenantId, reservationId, { sessionId: id, agentId: row.agent_id })) ? reservationId : undefined;
    return rt.enqueue(content, paid);
  }

  async rename(tenantId: string, id: string, patch: { name?: string; timeoutMinutes?: number }): Promise<SessionView> {
    const row = await this.mustGet(tenantId, id);
    const rt = this.live(tenantId, id);
    const fields: Partial<SessionRow> = {};
    if (patch.name !== undefined) fields.name = patch.name;
    if (patch.timeoutMinutes !== undefined) fields.timeout_minutes = patch.timeoutMinutes;
    if (rt) await rt.save(fields);
    else await this.store.patch(row.id, fields);
    return this.view(tenantId, id);
  }

  async remove(tenantId: string, id: string): Promise<void> {
    const row = await this.mustGet(tenantId, id);
    const rt = this.live(tenantId, id);
    if (this.heldElsewhere(rt, row)) await this.toHolder(tenantId, { kind: 'stop', sessionId: id, args: {} });
    if (rt) await rt.stop('stopped', null, 'deleted');
    await this.store.remove(tenantId, id);
    // A session without a project worked in a folder of its own; it goes with the session. (This
    // process may not write files itself, so a child process removes it.)
    if (row.project_id === null && row.working_dir === this.workspaceOf(id)) await rm(row.working_dir, { recursive: true, force: true });
    this.ctx.host.audit('session.deleted', `session:${id}`, {});
  }

  private workspaceOf(id: string): string {
    return join(this.config.dataDir, 'extensions', 'sessions', 'workspaces', id);
  }

  async extendTimeout(tenantId: string, id: string, minutes: number): Promise<string> {
    const rt = this.live(tenantId, id);
    if (!rt && this.holds.shared && LIVE.includes((await this.mustGet(tenantId, id)).status)) {
      return (await this.toHolder(tenantId, { kind: 'extend_timeout', sessionId: id, args: { minutes } })) as string;
    }
    if (!rt) throw conflict(`session ${id} is not running: there is no timeout to extend`);
    return rt.extendTimeout(minutes);
  }

  /** Answers an approval request wherever its session runs; false when no instance is asking it. */
  async respondApproval(tenantId: string, requestId: string, behavior: 'allow' | 'deny', actor: string): Promise<boolean> {
    if (await this.broker.respond(tenantId, requestId, behavior, actor)) return true;
    if (!this.holds.shared) return false;
    return this.remote.send(tenantId, { kind: 'approval', sessionId: '', args: { requestId, behavior, actor } }, () => notFound(`approval request ${requestId}`)).then(() => true, () => false);
  }

  /**
   * The holds are gone (their connection failed), so another instance may take these sessions over: this
   * one stops running them at once, leaving them live in the database, as a shutdown does; whoever
   * holds them next (maybe this instance again) restarts them from their summary.
   */
  private async letGo(reason: string): Promise<void> {
    const held = [...this.runtimes.values()];
    this.runtimes.clear();
    this.ctx.host.log('error', `the connection holding this instance's sessions failed (${reason}); letting ${held.length} session(s) go`);
    await Promise.all(held.map((rt) => rt.shutdown().catch(() => undefined)));
    void this.syncWake();
  }

  /** A live session of the database that this process does not run: another instance holds it. */
  private heldElsewhere(rt: SessionRuntime | undefined, row: SessionRow): boolean {
    return !rt && this.holds.shared && LIVE.includes(row.status);
  }

  private toHolder(tenantId: string, command: Omit<Command, 'id'>): Promise<unknown> {
    return this.remote.send(tenantId, command, () => new RoostError('EXTENSION_UNAVAILABLE', `the instance running session ${command.sessionId} did not answer; try again shortly`));
  }

  /** A command from another instance, carried out when this instance holds what it names. */
  private async executeRemote(tenantId: string, command: Command): Promise<{ value: unknown } | undefined> {
    if (command.kind === 'approval') {
      const { requestId, behavior, actor } = command.args as { requestId: string; behavior: 'allow' | 'deny'; actor: string };
      return (await this.broker.respond(tenantId, requestId, behavior, actor)) ? { value: true } : undefined;
    }
    if (!this.live(tenantId, command.sessionId)) return undefined;
    switch (command.kind) {
      case 'stop':
        return { value: await this.stop(tenantId, command.sessionId) };
      case 'send':
        return { value: await this.send(tenantId, command.sessionId, String(command.args.content), typeof command.args.reservationId === 'string' ? command.args.reservationId : undefined) };
      case 'extend_timeout':
        return { value: await this.extendTimeout(tenantId, command.sessionId, Number(command.args.minutes)) };
    }
  }

  /**
   * At start-up: running sessions start again from their summary; paused ones wait for their resume
   * time — those this instance can hold (another instance may run them). Sharing a database, it then
   * keeps looking for live sessions whose instance went away, and takes them over.
   */
  async restoreAll(): Promise<void> {
    await this.restoreUnheld();
    if (this.holds.shared) {
      this.adopter = setInterval(() => void this.restoreUnheld().catch((err: Error) => this.ctx.host.log('warn', `taking over sessions failed: ${err.message}`)), this.config.takeoverMs);
      this.adopter.unref();
    }
  }

  private async restoreUnheld(): Promise<void> {
    for (const row of await this.store.live()) {
      if (this.runtimes.has(row.id) || !(await this.holds.hold(row.id))) continue;
      const rt = await SessionRuntime.load(this.deps, row);
      this.runtimes.set(row.id, rt);
      if (row.status === 'paused') {
        rt.armResume();
        continue;
      }
      const expired = row.timeout_remaining_ms === null && row.timeout_at !== null && Date.parse(row.timeout_at) <= Date.now();
      if (expired || row.timeout_remaining_ms === 0) await rt.stop('timeout', 'SESSION_TIMEOUT', 'the session ran out of time while the server was down');
      else await rt.start('restart');
    }
    await this.syncWake();
  }

  async shutdown(): Promise<void> {
    if (this.adopter) clearInterval(this.adopter);
    await Promise.all([...this.runtimes.values()].map((rt) => rt.shutdown()));
    await this.deps.pool.close();
    await this.holds.close();
  }

  /** An owner allowed a tool use after it had been denied: tell the agent it may retry it once. */
  private async lateGrant(entry: Escalation): Promise<void> {
    const rt = this.runtimes.get(entry.sessionId);
    if (!rt) return;
    await rt.enqueue(`An owner has now approved your earlier request to use ${entry.toolName} with ${JSON.stringify(entry.input)}. It is allowed once: retry it if it is still needed.`);
  }
}
