// /api/workflows: the graphs, the engine's health, triggering a run, the test clock.
import { join } from 'node:path';
import { notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { created, noContent, ok, page } from '../../sdk/http.js';
import { requireInstanceOwner } from '../../sdk/roles.js';
import { DEFAULT_CONCURRENT_NODES } from './engine.js';
import { MAX_ACTIVE_RUNS, type WorkflowService } from './service.js';
import type { WorkflowInput } from './store.js';
import { MAX_NODE_RUNS } from './transitions.js';
import { WORKFLOWS_ROUTES } from './contract.js';

export const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);

export const workflowRoutes: Record<string, RouteHandler<WorkflowService>> = {
  async 'GET /api/workflows'(req, _ctx, service) {
    return ok(await service.workflows.list(req.auth.tenantId, page(req.query)));
  },

  async 'POST /api/workflows'(req, ctx, service) {
    const input = validate<Required<Pick<WorkflowInput, 'name' | 'nodes' | 'edges'>> & WorkflowInput>(schema(ctx, 'workflow-create.json'), req.body);
    const workflow = await service.create(req.auth.tenantId, input);
    ctx.host.audit('workflow.created', `workflow:${workflow.id}`, { name: workflow.name, nodes: workflow.nodes.length });
    return created(workflow);
  },

  async 'GET /api/workflows/health'(req, _ctx, s) {
    return ok({
      status: 'ok',
      engine: { instance: s.engine.instance, executing: s.engine.control.inflight.size },
      runs: await s.runs.counts(req.auth.tenantId),
      clock: { test: s.clock.test, now: new Date(s.clock.now()).toISOString() },
      limits: { maxNodeRuns: MAX_NODE_RUNS, concurrentNodesPerRun: DEFAULT_CONCURRENT_NODES, activeRunsPerTenant: MAX_ACTIVE_RUNS },
    });
  },

  async 'POST /api/workflows/test-clock'(req, ctx, s) {
    if (!s.clock.test) throw notFound('the test clock (it is off; a server started with ROOST_CLOCK=test has one)');
    requireInstanceOwner(req.auth, 'advance the test clock');
    const { advanceMs } = validate<{ advanceMs: number }>(schema(ctx, 'test-clock.json'), req.body);
    const now = await s.clock.advance(advanceMs);
    s.engine.kick();
    return ok({ now: new Date(now).toISOString() });
  },

  async [WORKFLOWS_ROUTES.get](req, _ctx, service) {
    return ok(await service.mustGetWorkflow(req.auth.tenantId, req.params.id!));
  },

  async 'PUT /api/workflows/:id'(req, ctx, service) {
    const input = validate<WorkflowInput>(schema(ctx, 'workflow-update.json'), req.body);
    const workflow = await service.update(req.auth.tenantId, req.params.id!, input);
    ctx.host.audit('workflow.updated', `workflow:${workflow.id}`, { version: workflow.version });
    return ok(workflow);
  },

  async 'DELETE /api/workflows/:id'(req, ctx, service) {
    await service.remove(req.auth.tenantId, req.params.id!);
    ctx.host.audit('workflow.deleted', `workflow:${req.params.id}`, {});
    return noContent();
  },

  async [WORKFLOWS_ROUTES.trigger](req, ctx, service) {
    const { input } = validate<{ input?: unknown }>(schema(ctx, 'trigger.json'), req.body ?? {});
    return created(await service.trigger(req.auth.tenantId, req.params.id!, input ?? null, req.auth.actor));
  },

  async 'GET /api/workflows/:id/runs'(req, _ctx, service) {
    const workflow = await service.mustGetWorkflow(req.auth.tenantId, req.params.id!);
    return ok(await service.runs.list(req.auth.tenantId, { workflowId: workflow.id }, page(req.query)));
  },
};
