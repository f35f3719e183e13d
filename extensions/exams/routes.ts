// The exam API: the categories, starting a run for an agent (it runs in the background: poll the run),
// and the runs with their graded tasks.
import { join } from 'node:path';
import { notFound, RoostError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { ok, page, queryString } from '../../sdk/http.js';
import { requireRole } from '../../sdk/roles.js';
import { CATEGORIES, tasksFor, type Category } from './catalogue.js';
import { sit } from './sitting.js';
import type { Exams } from './state.js';
import { ExamStore } from './store.js';
import { MemoryClient } from '../memory/contract.js';
import { agentsClient } from '../agents/contract.js';

const store = (ctx: ExtensionContext) => new ExamStore(ctx.db);

/** The memory category needs the memory extension: is its route served here? */
async function memoryAvailable(ctx: ExtensionContext, tenantId: string): Promise<boolean> {
  return new MemoryClient(ctx.host).served({ tenantId });
}

/** Sits the exam and records its end. Never rejects: it runs detached from any request, and a failure of its own store is logged. */
export async function runInBackground(ctx: ExtensionContext, tenantId: string, runId: string, agent: { id: string; permissionMode: string }, categories: Category[]): Promise<void> {
  let error: string | null = null;
  try {
    const available = { memory: categories.includes('memory') && (await memoryAvailable(ctx, tenantId)) };
    for (const task of tasksFor(categories)) await store(ctx).record(runId, await sit(ctx, tenantId, agent, task, available));
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  try {
    await store(ctx).finish(runId, error);
  } catch (err) {
    // The run stays `running` until a start of the extension finds it interrupted and fails it.
    ctx.host.log('error', `exam ${runId}: its end could not be recorded: ${err instanceof Error ? err.message : String(err)}${error ? ` (the run had failed: ${error})` : ''}`);
    return;
  }
  ctx.host.emit(`exam.${runId}`, { type: 'exam_finished', runId }, tenantId);
}

export const routes: Record<string, RouteHandler<Exams>> = {
  'GET /api/exam/categories'() {
    const tasks = tasksFor(Object.keys(CATEGORIES) as Category[]);
    return ok({ categories: Object.entries(CATEGORIES).map(([name, description]) => ({ name, description, tasks: tasks.filter((t) => t.category === name).map((t) => t.id) })) });
  },

  async 'POST /api/exam/run'(req, ctx, exams) {
    requireRole(req.auth, 'operator', 'running an exam');
    const body = validate<{ agentId: string; categories?: Category[] }>(join(ctx.init.plugin.dir, 'schemas', 'exam-run.json'), req.body);
    const agent = await agentsClient(ctx.host, { requestId: req.id }).get(body.agentId);
    if (agent.status === 404 && agent.body?.code === 'ROUTE_NOT_FOUND') throw new RoostError('EXTENSION_UNAVAILABLE', 'an exam needs the agents extension, which is not loaded');
    if (agent.status !== 200 || !agent.body) throw notFound(`agent ${body.agentId}`);
    const categories = [...new Set(body.categories ?? (Object.keys(CATEGORIES) as Category[]))];
    const run = await store(ctx).create(req.auth.tenantId, agent.body.id, categories, exams.runner);
    ctx.host.audit('exam.started', `exam:${run.id}`, { agentId: run.agentId, categories });
    void runInBackground(ctx, req.auth.tenantId, run.id, { id: agent.body.id, permissionMode: agent.body.permissionMode }, categories);
    return { status: 202, body: run };
  },

  async 'GET /api/exam/runs'(req, ctx) {
    const { limit, offset } = page(req.query);
    const agentId = queryString(req.query, 'agentId');
    return ok(await store(ctx).list(req.auth.tenantId, { limit, offset, ...(agentId ? { agentId } : {}) }));
  },

  async 'GET /api/exam/runs/:id'(req, ctx) {
    const run = await store(ctx).get(req.auth.tenantId, req.params.id!);
    if (!run) throw notFound(`exam run ${req.params.id}`);
    return ok(run);
  },
};
