// The projects REST API. Handlers are plain functions of (request, context), so the same code can be
// served by the extension process or, for the isolation benchmark, inside the kernel.
import { join } from 'node:path';
import { notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { created, noContent, ok, page, queryString } from '../../sdk/http.js';
import { PlansClient, type PlanCache } from '../plans/contract.js';
import { browse, checkWorkingDir } from './dirs.js';
import { rootsFor } from '../../sdk/workspace-roots.js';
import { resolveReferences } from '../../sdk/references.js';
import { PROJECTS_ROUTES, type CreateProjectRequest, type Project, type ProjectInput } from './contract.js';
import { ProjectStore } from './store.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);
const store = (ctx: ExtensionContext) => new ProjectStore(ctx.db, ctx.sql);

async function mustGet(ctx: ExtensionContext, req: RouteRequest): Promise<Project> {
  const project = await store(ctx).get(req.auth.tenantId, req.params.id!);
  if (!project) throw notFound(`project ${req.params.id}`);
  return project;
}

function announce(ctx: ExtensionContext, req: RouteRequest, action: string, project: Project): void {
  ctx.host.emit(`project.${project.id}`, { type: 'project_updated', projectId: project.id, action, project }, req.auth.tenantId);
}

/** What the extension keeps while it runs (main.ts): the plans its creates were checked against. */
export interface ProjectsState {
  plans: PlanCache;
}

export const routes: Record<string, RouteHandler<ProjectsState>> = {
  async [PROJECTS_ROUTES.list](req, ctx) {
    return ok(await store(ctx).list(req.auth.tenantId, { ...page(req.query), search: queryString(req.query, 'search') }));
  },

  async [PROJECTS_ROUTES.create](req, ctx, state) {
    const input = validate<CreateProjectRequest>(schema(ctx, 'project-create.json'), req.body);
    input.workingDir = await checkWorkingDir(input.workingDir, await rootsFor(ctx, req.auth.tenantId));
    await new PlansClient(ctx.host, state.plans).requireWithin(req.auth.tenantId, 'projects', await store(ctx).count(req.auth.tenantId), { requestId: req.id });
    const project = await store(ctx).create(req.auth.tenantId, input);
    announce(ctx, req, 'created', project);
    return created(project);
  },

  async [PROJECTS_ROUTES.get](req, ctx) {
    return ok(await mustGet(ctx, req));
  },

  async [PROJECTS_ROUTES.update](req, ctx) {
    const input = validate<ProjectInput>(schema(ctx, 'project-update.json'), req.body);
    if (input.workingDir !== undefined) input.workingDir = await checkWorkingDir(input.workingDir, await rootsFor(ctx, req.auth.tenantId));
    const project = await store(ctx).update(req.auth.tenantId, req.params.id!, input);
    if (!project) throw notFound(`project ${req.params.id}`);
    announce(ctx, req, 'updated', project);
    return ok(project);
  },

  async [PROJECTS_ROUTES.remove](req, ctx) {
    const project = await mustGet(ctx, req);
    await store(ctx).remove(req.auth.tenantId, project.id);
    announce(ctx, req, 'deleted', project);
    return noContent();
  },

  async [PROJECTS_ROUTES.skills](req, ctx) {
    const project = await mustGet(ctx, req);
    return ok({ projectId: project.id, bundleIds: await store(ctx).skills(project.id) });
  },

  async [PROJECTS_ROUTES.setSkills](req, ctx) {
    const project = await mustGet(ctx, req);
    const { bundleIds } = validate<{ bundleIds: string[] }>(schema(ctx, 'skills-put.json'), req.body);
    await resolveReferences(ctx.host, { requestId: req.id }, bundleIds.map((id, i) => ['skill bundle', id, `body.bundleIds[${i}]`]));
    await store(ctx).setSkills(project.id, bundleIds);
    return ok({ projectId: project.id, bundleIds });
  },

  async [PROJECTS_ROUTES.browseDirs](req, ctx) {
    const path = queryString(req.query, 'path');
    return ok(await browse(path, (await rootsFor(ctx, req.auth.tenantId)).dirs, queryString(req.query, 'showHidden') === 'true'));
  },
};
