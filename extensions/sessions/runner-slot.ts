// The runner of one session: starting a fresh one (the agent as it is now with its memories, the
// project's working directory and env_vars, the provider's secrets, an MCP token scoped to this agent and
// session, the external MCP servers' tools it may use, the summary of the conversation so far), killing
// it, resetting the context, and noticing crashes.
import type { ChildExit } from '../../lib/child.js';
import { RoostError } from '../../protocol/errors.js';
import type { ProviderConfig } from '../../lib/providers/index.js';
import { resolveProvider } from '../../lib/providers/resolve.js';
import type { ApprovalContext } from './approvals.js';
import { CRASH_BUDGET, CRASH_WINDOW_MS, MAX_TOKENS } from './config.js';
import { ExternalToolSet } from './external-tools.js';
import { agentSpec, projectSpec, sessionSandbox, type AgentSpec, type ProjectSpec } from './lookups.js';
import { skillTools } from './skill-tools.js';
import { withMemories } from './memories.js';
import { withOutcomes } from './outcomes.js';
import type { RunnerProcess } from './runner-process.js';
import type { RunnerEvent } from './runner/protocol.js';
import type { SessionRuntime } from './runtime.js';
import { pendingOf } from './store.js';
import { buildSummary } from './summary.js';
import { SESSION_TOPICS } from './contract.js';

export type StartReason = 'start' | 'restart' | 'resume' | 'turn_limit' | 'crash';

/** MCP tokens outlive any session window; a new one is minted for every runner. */
const TOKEN_TTL_SECONDS = 24 * 3600;

/** A runner given its session and ready to take turns, with what its start found out. */
interface Launched {
  runner: RunnerProcess;
  ready: Awaited<ReturnType<RunnerProcess['start']>>;
  agent: AgentSpec;
  workingDir: string;
  summary: string | null;
  externalError: string | null;
}

export class RunnerSlot {
  runner: RunnerProcess | undefined;
  agent: AgentSpec | undefined;
  /** Turns taken by the current runner (its context). */
  contextTurns = 0;
  private spawning: Promise<RunnerProcess> | undefined;
  private crashes: number[] = [];
  /** A new session's first runner, launched while the session is still being stored. */
  private prepared: Promise<Launched> | undefined;

  constructor(private readonly rt: SessionRuntime) {}

  /**
   * Launches a new session's first runner from what creating the session has just read (no second
   * lookup), while the session is being stored; its first start takes it. abandon() if the session is
   * not created after all.
   */
  prepare(agent: AgentSpec, provider: ProviderConfig, project: ProjectSpec | null): void {
    this.prepared = this.launch(agent, provider, project);
    this.prepared.catch(() => undefined); // its start reports the failure
  }

  async abandon(): Promise<void> {
    const prepared = this.prepared;
    this.prepared = undefined;
    await prepared?.then((launched) => launched.runner.stop(), () => undefined);
  }

  get pid(): number | null {
    return this.runner?.running ? this.runner.pid : null;
  }

  /** The running runner, or a fresh one started from the summary. */
  ensure(reason: StartReason): Promise<RunnerProcess> {
    if (this.runner?.running) return Promise.resolve(this.runner);
    this.spawning ??= this.spawn(reason).finally(() => (this.spawning = undefined));
    return this.spawning;
  }

  /** Kills the runner and starts a fresh one from the summary (every turnsPerContext turns). */
  async reset(): Promise<void> {
    await this.kill();
    await this.ensure('turn_limit');
  }

  async kill(): Promise<void> {
    await this.runner?.stop();
  }

  /** True while crashes stay within the budget (CRASH_BUDGET in CRASH_WINDOW_MS without a completed turn). */
  noteCrash(): boolean {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
    return this.crashes.length <= CRASH_BUDGET;
  }

  get crashCount(): number {
    return this.crashes.length;
  }

  forgetCrashes(): void {
    this.crashes = [];
  }

  private async spawn(reason: StartReason): Promise<RunnerProcess> {
    const { rt } = this;
    const row = rt.row;
    const prepared = this.prepared;
    this.prepared = undefined;
    const { runner, ready, agent, workingDir, summary, externalError } = await (prepared ?? this.launch(await agentSpec(rt.deps.ctx.host, { tenantId: row.tenant_id }, row.agent_id, row.project_id)));
    if (rt.closing || !['created', 'running', 'resumed'].includes(rt.row.status)) {
      await runner.stop();
      throw new RoostError('CANCELLED', `session ${row.id} is ${rt.row.status}`);
    }
    const previousPid = this.runner?.pid ?? null;
    const resets = reason === 'start' ? row.context_resets : row.context_resets + 1;
    rt.stage({ provider: agent.provider, model: agent.model, working_dir: workingDir, context_resets: resets });
    // The new pid becomes visible together with its runner_started event, never before it.
    this.runner = runner;
    this.agent = agent;
    this.contextTurns = 0;
    rt.record('runner_started', { pid: runner.pid, previousPid, reason, summary, tools: ready.tools, mcpError: ready.mcpError ?? null, externalToolsError: externalError });
    return runner;
  }

  /** A runner for the session as it is now: the agent's prompt with its memories (and outcomes, opted in), the summary so far, its tools. */
  private async launch(agent: AgentSpec, known?: ProviderConfig, knownProject?: ProjectSpec | null): Promise<Launched> {
    const { rt } = this;
    const { host, db } = rt.deps.ctx;
    const row = rt.row;
    const as = { tenantId: row.tenant_id };
    const skills = skillTools(agent.skillTools);
    const [provider, project, token, mcpTools, summary, systemPrompt, external] = await Promise.all([
      known ?? resolveProvider(agent.provider, agent.model, (name) => host.secret(name)),
      knownProject !== undefined ? knownProject : row.project_id ? projectSpec(host, as, row.project_id) : null,
      host.token({ tenantId: row.tenant_id, agentId: agent.id, sessionId: row.id, tools: [...new Set([...agent.mcpToolPermissions, ...skills.mcpGrants])], ttlSeconds: TOKEN_TTL_SECONDS }),
      // Handed to the runner, so a session start needs no MCP handshake (it connects at its first tool call).
      host.mcpTools(),
      buildSummary(db, row.id, new Set(pendingOf(row).map((p) => p.seq))),
      withOutcomes(host, as, agent.id, withMemories(host, as, agent.id, agent.systemPrompt, rt.firstPrompt)),
      ExternalToolSet.load(host, as, agent.id),
    ]);
    const workingDir = project?.workingDir ?? row.working_dir;
    const runner = rt.deps.pool.take(agent.provider);
    let ready;
    try {
      ready = await runner.start(
        {
          sessionId: row.id,
          provider,
          systemPrompt,
          summary,
          workingDir,
          createWorkingDir: project === null,
          protectedFiles: rt.deps.config.protectedFiles,
          env: project?.env ?? {},
          mcp: { url: `${rt.deps.config.serverUrl}/mcp`, token, tools: mcpTools },
          externalTools: external.specs,
          maxTokens: MAX_TOKENS,
          ...(skills.localTools ? { localTools: skills.localTools } : {}),
          sandboxLookup: true,
        },
        {
          onEvent: (event: RunnerEvent) => {
            const { type, ...data } = event;
            rt.record(type, data);
          },
          onApproval: (ask) => rt.deps.broker.decide(this.approvalContext(), ask.tool),
          onExternalTool: (call) => external.call(host, as, call),
          onSandbox: () => sessionSandbox(host, as, row.id),
          onSpans: (spans) => host.sendSpans(spans),
          onExit: (exit, expected) => this.onExit(runner, exit, expected),
          log: (level, message) => host.log(level as 'info', message),
        },
      );
    } catch (err) {
      await runner.stop();
      throw err;
    } finally {
      rt.deps.pool.refill();
    }
    return { runner, ready, agent, workingDir, summary, externalError: external.error };
  }

  private approvalContext(): ApprovalContext {
    const { rt } = this;
    return {
      tenantId: rt.tenantId,
      sessionId: rt.id,
      agentId: rt.row.agent_id,
      permissionMode: this.agent?.permissionMode ?? 'default',
      timeoutMs: rt.row.approval_timeout_ms,
      announce: (message) => rt.announce(message),
      record: (decision) => {
        rt.record('approval', decision);
        // For outcome statistics (the feedback extension): every decision, with whether a person was asked.
        rt.deps.ctx.host.emit(SESSION_TOPICS.approval, { sessionId: rt.id, agentId: rt.row.agent_id, toolName: decision.toolName, behavior: decision.behavior, by: decision.by, asked: decision.requestId !== null }, rt.tenantId);
      },
    };
  }

  private onExit(runner: RunnerProcess, exit: ChildExit, expected: boolean): void {
    if (expected || this.rt.closing || runner !== this.runner) return;
    this.rt.record('runner_exited', { pid: runner.pid, code: exit.code, signal: exit.signal });
    this.rt.runnerCrashed();
  }
}
