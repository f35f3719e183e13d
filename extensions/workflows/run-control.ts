// Ending and steering runs: fail, cancel, pause, resume, and completing a run when nothing is left to
// do. Every change is a compare-and-set on the stored status, so two callers never both win, and each
// is announced on the run's stream (workflow-run.{runId}).
import type { Knex } from 'knex';
import { conflict, RoostError, toRoostError } from '../../protocol/errors.js';
import type { HostClient } from '../../sdk/host-client.js';
import { stopStarted } from './nodes-remote.js';
import { nodeRunView, OPEN_NODE, runView, type NodeRunRow, type RunRow, type RunStatus, RunStore } from './run-store.js';

export class RunControl {
  /** Abort controllers of the node runs executing in this process, by node run id. */
  readonly inflight = new Map<string, { runId: string; controller: AbortController }>();
  /** Told when a run ends, so what is kept in memory for it can go. */
  onEnd: (runId: string) => void = () => undefined;

  constructor(
    readonly store: RunStore,
    private readonly db: Knex,
    private readonly host: HostClient,
  ) {}

  announceRun(run: RunRow): void {
    this.host.emit(`workflow-run.${run.id}`, { type: 'workflow_run_update', runId: run.id, status: run.status, run: runView(run) }, run.tenant_id);
  }

  async announceNode(tenantId: string, nodeRunId: string): Promise<void> {
    const row = await this.store.nodeRun(nodeRunId);
    if (row) this.announceRow(tenantId, row);
  }

  /** A node run as it was just stored (the engine knows it without reading it back). */
  announceRow(tenantId: string, row: NodeRunRow): void {
    this.host.emit(`workflow-run.${row.run_id}`, { type: 'workflow_node_update', runId: row.run_id, nodeRun: nodeRunView(row) }, tenantId);
  }

  private async changed(id: string): Promise<RunRow> {
    const run = (await this.store.byId(id))!;
    this.announceRun(run);
    return run;
  }

  async pause(run: RunRow): Promise<RunRow> {
    if (!(await this.store.patchRun(run.id, ['running'], { status: 'paused' }))) throw conflict(`run ${run.id} is ${await this.statusOf(run.id)}; only a running run can be paused`);
    return this.changed(run.id);
  }

  async resume(run: RunRow): Promise<RunRow> {
    if (!(await this.store.patchRun(run.id, ['paused'], { status: 'running' }))) throw conflict(`run ${run.id} is ${await this.statusOf(run.id)}; only a paused run can be resumed`);
    return this.changed(run.id);
  }

  async cancel(run: RunRow): Promise<RunRow> {
    if (!(await this.end(run, 'cancelled', null))) throw conflict(`run ${run.id} is ${await this.statusOf(run.id)}; only a running or paused run can be cancelled`);
    return (await this.store.byId(run.id))!;
  }

  /**
   * Fails the node run and with it the run; its other open node runs are cancelled. Nothing happens when
   * the node run was no longer open (a timeout firing as the webhook's answer completed it): false.
   */
  async failNode(run: RunRow, nodeRun: NodeRunRow, err: unknown): Promise<boolean> {
    const error = toRoostError(err);
    const message = error.code === 'INTERNAL' ? `internal error: ${err instanceof Error ? err.message : String(err)}` : error.message;
    if (!(await this.store.patchNode(nodeRun.id, ['pending', 'running', 'waiting'], { status: 'failed', error: message, error_code: error.code, ended_at: new Date().toISOString() }))) return false;
    await this.announceNode(run.tenant_id, nodeRun.id);
    await this.end(run, 'failed', new RoostError(error.code, `node "${nodeRun.node_id}" (${nodeRun.node_type}) failed: ${message}`));
    return true;
  }

  /** Ends an active run; its open node runs are cancelled and what they started is stopped. */
  async end(run: RunRow, status: Extract<RunStatus, 'failed' | 'cancelled'>, error: RoostError | null): Promise<boolean> {
    const ended = await this.store.patchRun(run.id, ['running', 'paused'], {
      status,
      error: error?.message ?? null,
      error_code: error?.code ?? null,
      ended_at: new Date().toISOString(),
    });
    if (!ended) return false;
    this.onEnd(run.id);
    for (const entry of this.inflight.values()) if (entry.runId === run.id) entry.controller.abort();
    const open = await this.db<NodeRunRow>('workflow_node_runs').where({ run_id: run.id }).whereIn('status', OPEN_NODE);
    await this.db('workflow_node_runs').where({ run_id: run.id }).whereIn('status', OPEN_NODE).update({ status: 'cancelled', ended_at: new Date().toISOString() });
    for (const row of open) {
      await stopStarted(this.host, { tenantId: run.tenant_id }, JSON.parse(row.state) as Record<string, unknown>);
      await this.announceNode(run.tenant_id, row.id);
    }
    await this.changed(run.id);
    return true;
  }

  /**
   * Completes the run when no node run is left to do; fails it when only joins are left waiting for
   * branches that were never taken. Returns whether the run ended.
   */
  async settle(runId: string): Promise<boolean> {
    const open = await this.db<NodeRunRow>('workflow_node_runs').where({ run_id: runId }).whereIn('status', OPEN_NODE).select('node_id', 'node_type', 'status', 'state');
    const stuckJoins = open.filter((r) => r.node_type === 'join' && r.status === 'waiting');
    if (open.length > stuckJoins.length) return false;
    const run = await this.store.byId(runId);
    if (!run || (run.status !== 'running' && run.status !== 'paused')) return false;
    if (stuckJoins.length > 0) {
      const which = stuckJoins.map((j) => `"${j.node_id}" (arrived: ${(JSON.parse(j.state) as { arrived: string[] }).arrived.join(', ')})`).join('; ');
      return this.end(run, 'failed', new RoostError('JOIN_INCOMPLETE', `the run cannot go on: join ${which} waits for branches that were not taken`));
    }
    const last = (await this.db<NodeRunRow>('workflow_node_runs').where({ run_id: runId, node_type: 'end', status: 'completed' }).orderBy('seq', 'desc').first()) as NodeRunRow | undefined;
    const done = await this.store.patchRun(runId, ['running', 'paused'], { status: 'completed', output: last?.output ?? null, ended_at: new Date().toISOString() });
    if (done) {
      this.onEnd(runId);
      await this.changed(runId);
    }
    return done;
  }

  private async statusOf(id: string): Promise<string> {
    return (await this.store.byId(id))?.status ?? 'gone';
  }
}
