// What the routes and the MCP tool share: the stores, the engine, and the operations both offer
// (saving a validated workflow, triggering, run details, pause / resume / cancel).
import { conflict, notFound, RoostError } from '../../protocol/errors.js';
import type { PageRequest } from '../../sdk/db.js';
import type { Clock } from './clock.js';
import type { Engine } from './engine.js';
import { validateGraph } from './graph.js';
import { nodeRunView, runView, type NodeRunRow, type RunRow, RunStore } from './run-store.js';
import { WorkflowStore, type Workflow, type WorkflowInput } from './store.js';
import { insertRun } from './transitions.js';
import type { WebhookTokens } from './webhook-tokens.js';

/** Runs of one tenant that may be active (running or paused) at once. */
export const MAX_ACTIVE_RUNS = 100;

export class WorkflowService {
  constructor(
    readonly workflows: WorkflowStore,
    readonly runs: RunStore,
    readonly engine: Engine,
    readonly clock: Clock,
    readonly tokens: WebhookTokens,
  ) {}

  async mustGetWorkflow(tenantId: string, id: string): Promise<Workflow> {
    const workflow = await this.workflows.get(tenantId, id);
    if (!workflow) throw notFound(`workflow ${id}`);
    return workflow;
  }

  async mustGetRun(tenantId: string, id: string): Promise<RunRow> {
    const run = await this.runs.get(tenantId, id);
    if (!run) throw notFound(`workflow run ${id}`);
    return run;
  }

  async create(tenantId: string, input: Required<Pick<WorkflowInput, 'name' | 'nodes' | 'edges'>> & WorkflowInput): Promise<Workflow> {
    validateGraph({ nodes: input.nodes, edges: input.edges });
    return this.workflows.create(tenantId, input);
  }

  async update(tenantId: string, id: string, input: WorkflowInput): Promise<Workflow> {
    const current = await this.mustGetWorkflow(tenantId, id);
    if (input.nodes !== undefined || input.edges !== undefined) validateGraph({ nodes: input.nodes ?? current.nodes, edges: input.edges ?? current.edges });
    const updated = await this.workflows.update(tenantId, id, input);
    if (!updated) throw notFound(`workflow ${id}`);
    return updated;
  }

  async remove(tenantId: string, id: string): Promise<void> {
    await this.mustGetWorkflow(tenantId, id);
    if ((await this.runs.activeRuns(tenantId, id)) > 0) throw conflict(`workflow ${id} has active runs; cancel them (POST /api/workflow-runs/:id/action {"action":"cancel"}) before deleting it`);
    await this.workflows.remove(tenantId, id);
  }

  async trigger(tenantId: string, id: string, input: unknown, actor: string): Promise<ReturnType<typeof runView>> {
    const workflow = await this.mustGetWorkflow(tenantId, id);
    if (!workflow.enabled) throw conflict(`workflow ${id} is disabled; enable it (PUT {"enabled": true}) to run it`);
    const active = await this.runs.activeRuns(tenantId);
    if (active >= MAX_ACTIVE_RUNS) {
      throw new RoostError('TOO_MANY_RUNS', `this tenant already has ${active} active workflow runs (the limit is ${MAX_ACTIVE_RUNS}); let some finish or cancel them`, { status: 429 });
    }
    const run = await insertRun(this.runs.db, tenantId, workflow, input, actor);
    this.engine.control.announceRun(run);
    this.engine.kick();
    return runView(run);
  }

  async act(tenantId: string, id: string, action: 'pause' | 'resume' | 'cancel'): Promise<ReturnType<typeof runView>> {
    const run = await this.mustGetRun(tenantId, id);
    const control = this.engine.control;
    const after = action === 'pause' ? await control.pause(run) : action === 'resume' ? await control.resume(run) : await control.cancel(run);
    this.engine.kick();
    return runView(after);
  }

  /**
   * A node run as members of its tenant see it; for operators and owners (`withTokens`) a waiting
   * webhook shows where to call and its token (a viewer holding it could change the run).
   */
  nodeView(run: RunRow, row: NodeRunRow, withTokens: boolean) {
    const view = nodeRunView(row);
    if (!withTokens || row.node_type !== 'webhook' || row.status !== 'waiting') return view;
    return { ...view, webhook: { path: `/api/workflow-runs/${run.id}/webhook/${row.node_id}`, token: this.tokens.tokenFor(row.id) } };
  }

  async runDetail(auth: { tenantId: string; role: string }, id: string, page?: PageRequest) {
    const run = await this.mustGetRun(auth.tenantId, id);
    const rows = await this.runs.nodeRuns(run.id);
    const slice = page ? rows.slice(page.offset, page.offset + page.limit) : rows;
    return { run, nodeRuns: slice.map((row) => this.nodeView(run, row, auth.role !== 'viewer')), total: rows.length };
  }
}
