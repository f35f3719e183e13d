// /api/workflow-runs: runs with their node runs, pause / resume / cancel, approvals, and the public
// webhook a waiting node listens on.
import { conflict, forbidden, notFound, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { ok, page, queryString } from '../../sdk/http.js';
import { requireRole } from '../../sdk/roles.js';
import { graphOf, RUN_STATUSES, runView, type NodeRunRow, type RunRow } from './run-store.js';
import { schema } from './routes-workflows.js';
import type { WorkflowService } from './service.js';
import { WORKFLOWS_ROUTES, type RunActionRequest } from './contract.js';

/** The latest node run of `nodeId` in the run (a node inside a loop runs more than once). */
async function latest(service: WorkflowService, run: RunRow, nodeId: string): Promise<NodeRunRow | undefined> {
  return (await service.runs.nodeRuns(run.id)).filter((r) => r.node_id === nodeId).at(-1);
}

export const runRoutes: Record<string, RouteHandler<WorkflowService>> = {
  async 'GET /api/workflow-runs'(req, _ctx, service) {
    const status = queryString(req.query, 'status');
    if (status !== undefined && !(RUN_STATUSES as readonly string[]).includes(status)) throw validationError(`query.status must be one of ${RUN_STATUSES.join(', ')}`);
    return ok(await service.runs.list(req.auth.tenantId, { workflowId: queryString(req.query, 'workflowId'), status }, page(req.query)));
  },

  async [WORKFLOWS_ROUTES.run](req, _ctx, service) {
    const { run, nodeRuns } = await service.runDetail(req.auth, req.params.id!);
    return ok({ ...runView(run), nodeRuns });
  },

  async 'GET /api/workflow-runs/:id/nodes'(req, _ctx, service) {
    const p = page(req.query);
    const { nodeRuns, total } = await service.runDetail(req.auth, req.params.id!, p);
    return ok({ nodeRuns, total, hasMore: p.offset + nodeRuns.length < total });
  },

  async [WORKFLOWS_ROUTES.runAction](req, ctx, service) {
    const { action } = validate<RunActionRequest>(schema(ctx, 'run-action.json'), req.body);
    const run = await service.act(req.auth.tenantId, req.params.id!, action);
    ctx.host.audit(`workflow_run.${action}`, `workflow_run:${run.id}`, {});
    return ok(run);
  },

  async 'POST /api/workflow-runs/:id/approve'(req, ctx, s) {
    const { nodeId, decision, comment } = validate<{ nodeId: string; decision: 'approve' | 'reject'; comment?: string }>(schema(ctx, 'approve.json'), req.body);
    const run = await s.mustGetRun(req.auth.tenantId, req.params.id!);
    requireRole(req.auth, 'owner', 'answering a workflow approval');
    const row = await latest(s, run, nodeId);
    if (!row || row.node_type !== 'approval') throw notFound(`approval node ${nodeId} in run ${run.id}`);
    if (row.status !== 'waiting') throw conflict(`approval node ${nodeId} is ${row.status}, not waiting for a decision`);
    const output = { decision, by: req.auth.actor, comment: comment ?? null, at: new Date(s.clock.now()).toISOString() };
    const rejectedEdge = graphOf(run).edges.some((e) => e.from === nodeId && e.branch === 'rejected');
    if (decision === 'reject' && !rejectedEdge) {
      const answered = (await s.engine.control.store.patchNode(row.id, ['waiting'], { output: JSON.stringify(output) }))
        && (await s.engine.control.failNode(run, row, forbidden(`rejected by ${req.auth.actor}${comment ? `: ${comment}` : ''}`)));
      if (!answered) throw conflict(`approval node ${nodeId} was answered meanwhile`);
    } else if (!(await s.engine.finishWaiting(row, output, decision === 'approve' ? 'approved' : 'rejected'))) {
      throw conflict(`approval node ${nodeId} was answered meanwhile`);
    }
    ctx.host.audit('workflow_run.approval', `workflow_run:${run.id}`, { nodeId, decision });
    return ok(runView((await s.runs.byId(run.id))!));
  },

  /** Public: the per-wait token in `?token=` is the only credential (the caller may be anyone). */
  async 'POST /api/workflow-runs/:id/webhook/:nodeId'(req, _ctx, s) {
    const run = await s.runs.byId(req.params.id!);
    const row = run && (await latest(s, run, req.params.nodeId!));
    if (!run || !row || row.node_type !== 'webhook') throw notFound(`webhook node ${req.params.nodeId} in run ${req.params.id}`);
    const token = queryString(req.query, 'token');
    if (token === undefined || !s.tokens.matches(row.id, token)) throw forbidden('the webhook token is missing or wrong');
    if (row.status !== 'waiting') throw conflict(`webhook node ${row.node_id} is ${row.status}, not waiting for a call`);
    const received = { body: req.body ?? null, receivedAt: new Date(s.clock.now()).toISOString() };
    if (!(await s.engine.finishWaiting(row, received, null))) throw conflict(`webhook node ${row.node_id} was answered meanwhile`);
    return { status: 202, body: { accepted: true, runId: run.id, nodeId: row.node_id } };
  },
};
