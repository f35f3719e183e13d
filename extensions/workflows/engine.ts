// The durable engine. One instance runs workflows at a time (the `workflows.engine` leader: an advisory
// lock on PostgreSQL, always this one on SQLite); it claims ready node runs (lib/claim.ts), records
// each one's input before running it, its state before waiting on anything it started, and its output
// with its successors in one transaction. After a crash or a change of leader it picks up the node
// runs left running (resuming on what they recorded), fires delays that came due, and goes on.
import type { Knex } from 'knex';
import { claim } from '../../lib/claim.js';
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Clock } from './clock.js';
import type { Executor, NodeEnv, Outcome, Scope } from './node-env.js';
import { TEMPLATE_FIELDS, type Graph, type NodeType } from './node-types.js';
import { localExecutors } from './nodes-local.js';
import { remoteExecutors } from './nodes-remote.js';
import { RunControl } from './run-control.js';
import { graphOf, settingsOf, type NodeRunRow, type RunRow } from './run-store.js';
import { render } from './template.js';
import { completeNode, MAX_NODE_RUNS, NODE_LIMIT_CODES, nodeJson } from './transitions.js';

const LEADER = 'workflows.engine';
/** How often the engine looks for work it was not told about (runs triggered on another instance). */
const POLL_MS = 1_000;
/** Node runs of one run executing at once, unless its workflow's settings say fewer (or more, up to 16). */
export const DEFAULT_CONCURRENT_NODES = 4;
/** Node runs executing at once in this engine, over every run. */
const MAX_INFLIGHT = 64;

const executors: Partial<Record<NodeType, Executor>> = { ...localExecutors, ...remoteExecutors };

export class Engine {
  readonly control: RunControl;
  private readonly db: Knex;
  /** Each run's scope, with the completed node runs it holds (to notice completions made by other instances). */
  private readonly scopes = new Map<string, { scope: Scope; seen: Set<string> }>();
  private readonly graphs = new Map<string, Graph>();
  private readonly runs = new Map<string, RunRow>();
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  private again = false;
  private recovered = false;
  private stopped = false;
  private awake: boolean | undefined;
  /** Instances may share the database (PostgreSQL): another may complete this engine's nodes. */
  private readonly shared: boolean;

  constructor(
    private readonly ctx: ExtensionContext,
    readonly clock: Clock,
    readonly instance: string,
    control: RunControl,
  ) {
    this.db = ctx.db;
    this.shared = ctx.init.storage?.client === 'pg';
    this.control = control;
    control.onEnd = (runId) => this.forget(runId);
  }

  /** Looks for work now (coalesced: a pump already running goes round once more). */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump()
      .catch((err: Error) => this.ctx.host.log('error', `workflow engine: ${err.stack ?? err.message}`))
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const entry of this.control.inflight.values()) entry.controller.abort();
  }

  private async pump(): Promise<void> {
    clearTimeout(this.timer);
    if (!(await this.ctx.host.leader(LEADER))) {
      // Another instance leads: what this one was running is theirs to resume now.
      for (const entry of this.control.inflight.values()) entry.controller.abort();
      this.recovered = false;
      return this.schedule(POLL_MS);
    }
    await this.clock.refresh();
    if (!this.recovered) {
      await this.recover();
      this.recovered = true;
    }
    await this.fireDue();
    await this.startReady();
    await this.syncWake();
    // Alone on SQLite with no active run there is nothing to poll for: every trigger kicks this engine
    // (and an extension that keeps polling is never stopped as idle). Instances sharing PostgreSQL
    // keep polling for runs triggered on the others.
    if (!this.awake && !this.shared) return;
    const next = await this.nextWake();
    this.schedule(next === undefined ? POLL_MS : Math.min(POLL_MS, Math.max(0, next - this.clock.now())));
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), ms);
    this.timer.unref();
  }

  /** Node runs another process left running (it died, or lost the lead): resume them here, once. */
  private async recover(): Promise<void> {
    const orphans = await this.db<NodeRunRow>('workflow_node_runs as nr').join('workflow_runs as r', 'r.id', 'nr.run_id')
      .where('nr.status', 'running').whereIn('r.status', ['running', 'paused']).whereNot('nr.claimed_by', this.instance).select('nr.*');
    for (const orphan of orphans) {
      const taken = await this.db('workflow_node_runs').where({ id: orphan.id, status: 'running', claimed_by: orphan.claimed_by }).update({ claimed_by: this.instance });
      if (taken > 0) void this.execute({ ...orphan, claimed_by: this.instance });
    }
    const active = await this.db<RunRow>('workflow_runs').where('status', 'running').select('id');
    for (const run of active) await this.control.settle(run.id);
  }

  private async fireDue(): Promise<void> {
    const due = await this.db<NodeRunRow>('workflow_node_runs as nr').join('workflow_runs as r', 'r.id', 'nr.run_id')
      .where('nr.status', 'waiting').whereNotNull('nr.wake_at').where('nr.wake_at', '<=', this.clock.now()).where('r.status', 'running').select('nr.*');
    for (const row of due) {
      const state = JSON.parse(row.state) as { waitingFor?: string };
      if (state.waitingFor === 'delay') {
        await this.finishWaiting(row, { wokeAt: new Date(this.clock.now()).toISOString() }, null);
        continue;
      }
      const run = (await this.control.store.byId(row.run_id))!;
      await this.control.failNode(run, row, new RoostError('TIMEOUT', `no ${state.waitingFor ?? 'answer'} arrived before the node's timeout`));
    }
  }

  private async nextWake(): Promise<number | undefined> {
    const row = await this.db('workflow_node_runs as nr').join('workflow_runs as r', 'r.id', 'nr.run_id')
      .where('nr.status', 'waiting').whereNotNull('nr.wake_at').where('r.status', 'running').min({ next: 'nr.wake_at' }).first();
    return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
  }

  private async startReady(): Promise<void> {
    const ready = await this.db('workflow_node_runs as nr').join('workflow_runs as r', 'r.id', 'nr.run_id')
      .where('nr.status', 'pending').where('r.status', 'running').distinct('nr.run_id', 'r.settings');
    for (const { run_id: runId, settings } of ready as Array<{ run_id: string; settings: string }>) {
      const perRun = (JSON.parse(settings) as { maxConcurrentNodes?: number }).maxConcurrentNodes ?? DEFAULT_CONCURRENT_NODES;
      const busy = [...this.control.inflight.values()].filter((e) => e.runId === runId).length;
      const room = Math.min(perRun - busy, MAX_INFLIGHT - this.control.inflight.size);
      if (room <= 0) continue;
      const claimed = await claim<NodeRunRow>(this.db, {
        table: 'workflow_node_runs',
        where: { run_id: runId, status: 'pending' },
        set: { status: 'running', claimed_by: this.instance, started_at: new Date().toISOString() },
        orderBy: 'seq',
        limit: room,
      });
      for (const row of claimed) void this.execute(row);
    }
  }

  /** Runs one node run to its outcome; `row` is claimed by this instance. */
  private async execute(claimed: NodeRunRow): Promise<void> {
    let row = claimed;
    const controller = new AbortController();
    this.control.inflight.set(row.id, { runId: row.run_id, controller });
    let handedOn = false;
    try {
      const run = await this.runOf(row.run_id);
      try {
        const graph = this.graphOf(run);
        const node = graph.nodes.find((n) => n.id === row.node_id)!;
        const scope = await this.scopeOf(run);
        const state = JSON.parse(row.state) as Record<string, unknown>;
        let input = row.input === null ? undefined : (JSON.parse(row.input) as Record<string, unknown>);
        if (input === undefined) {
          input = renderConfig(node.type, node.config ?? {}, scope);
          row = { ...row, input: nodeJson(input, 'rendered input') };
          await this.db('workflow_node_runs').where({ id: row.id }).update({ input: row.input });
        }
        this.control.announceRow(run.tenant_id, row);
        const env: NodeEnv = {
          host: this.ctx.host,
          as: { tenantId: run.tenant_id },
          clock: this.clock,
          signal: controller.signal,
          run,
          graph,
          node,
          nodeRun: row,
          scope,
          input,
          state,
          saveState: async (patch) => {
            Object.assign(state, patch);
            await this.db('workflow_node_runs').where({ id: row.id }).update({ state: JSON.stringify(state) });
          },
          recordCost: (costMicro) => this.control.store.setNodeCost(row, costMicro),
        };
        const outcome: Outcome = await executors[node.type]!(env);
        if (controller.signal.aborted) return;
        if (outcome.done) {
          const ready = await this.finish(run, graph, row, outcome.output, outcome.branch ?? null);
          handedOn = ready !== undefined && (await this.dispatch(run, ready, row.id));
          return;
        }
        const waiting = { status: 'waiting' as const, wake_at: outcome.wakeAt, state: JSON.stringify({ ...state, ...outcome.state }) };
        if (await this.control.store.patchNode(row.id, ['running'], waiting)) this.control.announceRow(run.tenant_id, { ...row, ...waiting });
      } catch (err) {
        if (!controller.signal.aborted) await this.control.failNode(run, row, err);
      }
    } finally {
      this.control.inflight.delete(row.id);
      // Whatever this node made ready was started directly; otherwise the pump looks for work.
      if (!handedOn) this.kick();
    }
  }

  /**
   * Starts the node runs a completion made ready, here and now, while the run has room (the pump
   * would find them too, a few queries later). True when every one was started.
   */
  private async dispatch(run: RunRow, ready: NodeRunRow[], finishing: string): Promise<boolean> {
    const settings = settingsOf(run);
    let all = true;
    for (const row of ready) {
      const busy = [...this.control.inflight.entries()].filter(([id, e]) => e.runId === run.id && id !== finishing).length;
      const room = (settings.maxConcurrentNodes ?? DEFAULT_CONCURRENT_NODES) - busy;
      if (room <= 0 || this.control.inflight.size >= MAX_INFLIGHT || (await this.control.store.byId(run.id))?.status !== 'running') {
        all = false;
        continue;
      }
      // Its input is stored with the claim: one write instead of two. A config that does not render
      // (too large) is left for execute(), which fails that node with the reason.
      const node = this.graphOf(run).nodes.find((n) => n.id === row.node_id)!;
      const scope = await this.scopeOf(run);
      let input: string | null;
      try {
        input = nodeJson(renderConfig(node.type, node.config ?? {}, scope), 'rendered input');
      } catch {
        input = null;
      }
      const claimed = { status: 'running' as const, claimed_by: this.instance, started_at: new Date().toISOString(), input };
      if (await this.control.store.patchNode(row.id, ['pending'], claimed)) void this.execute({ ...row, ...claimed });
    }
    return all;
  }

  /** A waiting node run is answered (delay due, webhook, approval): it completes and the run goes on. */
  async finishWaiting(row: NodeRunRow, output: unknown, branch: string | null): Promise<boolean> {
    const run = (await this.control.store.byId(row.run_id))!;
    const ready = await this.finish(run, this.graphOf(run), row, output, branch);
    this.kick();
    return ready !== undefined;
  }

  /** Completes the node run and records its successors; undefined when it was no longer open. */
  private async finish(run: RunRow, graph: Graph, row: NodeRunRow, output: unknown, branch: string | null): Promise<NodeRunRow[] | undefined> {
    const max = settingsOf(run).maxNodeRuns ?? MAX_NODE_RUNS;
    let completion;
    try {
      completion = await completeNode(this.db, graph, row, output, branch, max);
    } catch (err) {
      if (err instanceof RoostError && NODE_LIMIT_CODES.has(err.code)) {
        await this.control.failNode(run, row, err);
        return undefined;
      }
      throw err;
    }
    if (!completion) return undefined;
    const cached = this.scopes.get(run.id);
    if (cached) {
      cached.scope.nodes[row.node_id] = { output: output ?? null, status: 'completed' };
      cached.seen.add(row.id);
    }
    this.control.announceRow(run.tenant_id, completion.completed);
    if (completion.ready.length === 0) await this.control.settle(run.id);
    return completion.ready;
  }

  /** A run's row as triggered: only its status changes afterwards, and that is read from the store where it matters. */
  private async runOf(id: string): Promise<RunRow> {
    let run = this.runs.get(id);
    if (!run) this.runs.set(id, (run = (await this.control.store.byId(id))!));
    return run;
  }

  private graphOf(run: RunRow): Graph {
    let graph = this.graphs.get(run.id);
    if (!graph) this.graphs.set(run.id, (graph = graphOf(run)));
    return graph;
  }

  private forget(runId: string): void {
    this.scopes.delete(runId);
    this.graphs.delete(runId);
    this.runs.delete(runId);
  }

  /**
   * The run's context, kept in memory. On PostgreSQL it is checked against the stored count of completed
   * node runs on every use: a webhook or an approval answered on another instance completes a node
   * there, and its output must reach the templates rendered here. (On SQLite there is one instance, and
   * every completion passes through finish() here.)
   */
  private async scopeOf(run: RunRow): Promise<Scope> {
    const cached = this.scopes.get(run.id);
    if (cached && !this.shared) return cached.scope;
    const counted = cached && (await this.db('workflow_node_runs').where({ run_id: run.id, status: 'completed' }).count<Array<{ n: number | string }>>({ n: '*' }));
    if (cached && counted && cached.seen.size === Number(counted[0]?.n ?? 0)) return cached.scope;
    const done = await this.db<NodeRunRow>('workflow_node_runs').where({ run_id: run.id, status: 'completed' }).orderBy('seq').select('id', 'node_id', 'output');
    const nodes: Scope['nodes'] = {};
    for (const r of done) nodes[r.node_id] = { output: r.output === null ? null : JSON.parse(r.output), status: 'completed' };
    const scope: Scope = { input: JSON.parse(run.input), run: { id: run.id, workflowId: run.workflow_id }, nodes };
    this.scopes.set(run.id, { scope, seen: new Set(done.map((r) => r.id)) });
    return scope;
  }

  /** While a run is active the kernel starts this extension with the server and never stops it as idle. */
  private async syncWake(): Promise<void> {
    const active = await this.db('workflow_runs').whereIn('status', ['running', 'paused']).first('id');
    const wake = active !== undefined;
    if (wake === this.awake) return;
    this.awake = wake;
    await this.ctx.host.wakeOnStart(wake).catch((err: Error) => this.ctx.host.log('warn', `wake_on_start failed: ${err.message}`));
  }
}

/** A node's config with its template fields rendered over the run context. */
function renderConfig(type: NodeType, config: Record<string, unknown>, scope: Scope): Record<string, unknown> {
  const rendered = { ...config };
  for (const field of TEMPLATE_FIELDS[type] ?? []) if (config[field] !== undefined) rendered[field] = render(config[field], scope);
  return rendered;
}
