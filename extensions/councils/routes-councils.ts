// /api/councils: the councils of a tenant. Members (and a designated synthesizer) are agents the caller
// can see, checked through the agents routes.
import { join } from 'node:path';
import { conflict, notFound, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { isUniqueViolation } from '../../sdk/db.js';
import { created, noContent, ok, page } from '../../sdk/http.js';
import { CouncilStore, DEFAULT_MEMBER_TIMEOUT_SECONDS, DEFAULT_TEMPLATE, defaultQuorum, type Council, type CouncilInput } from './council-store.js';
import { LaunchStore } from './launch-store.js';
import { launchCouncil, launchView } from './launching.js';
import type { LaunchRunner } from './runner.js';
import { resolveAgents } from './members.js';
import { COUNCILS_ROUTES } from './contract.js';

export const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);
const store = (ctx: ExtensionContext) => new CouncilStore(ctx.db, ctx.sql);

async function mustGet(ctx: ExtensionContext, req: RouteRequest): Promise<Council> {
  const council = await store(ctx).get(req.auth.tenantId, req.params.id!);
  if (!council) throw notFound(`council ${req.params.id}`);
  return council;
}

/** The rules a schema cannot say, then the agents themselves. */
async function check(ctx: ExtensionContext, req: RouteRequest, c: Omit<Council, 'id' | 'createdAt' | 'updatedAt'>): Promise<void> {
  if (c.chairId !== null && !c.members.includes(c.chairId)) throw validationError(`chairId: ${c.chairId} is not one of the members`);
  if (c.quorum > c.members.length) throw validationError(`quorum: ${c.quorum} is more than the ${c.members.length} members`);
  const agents = c.synthesizerId && !c.members.includes(c.synthesizerId) ? [...c.members, c.synthesizerId] : c.members;
  await resolveAgents(ctx.host, { requestId: req.id }, agents, 'members');
}

export const councilRoutes: Record<string, RouteHandler<LaunchRunner>> = {
  async 'GET /api/councils'(req, ctx) {
    return ok(await store(ctx).list(req.auth.tenantId, page(req.query)));
  },

  async 'POST /api/councils'(req, ctx) {
    const input = validate<CouncilInput & Pick<Council, 'name' | 'members'>>(schema(ctx, 'council-create.json'), req.body);
    const council = {
      name: input.name,
      description: input.description ?? '',
      members: input.members,
      chairId: input.chairId ?? null,
      synthesizerId: input.synthesizerId ?? null,
      rounds: input.rounds ?? 1,
      questionTemplate: input.questionTemplate ?? DEFAULT_TEMPLATE,
      quorum: input.quorum ?? defaultQuorum(input.members.length),
      memberTimeoutSeconds: input.memberTimeoutSeconds ?? DEFAULT_MEMBER_TIMEOUT_SECONDS,
    };
    await check(ctx, req, council);
    return created(await store(ctx).create(req.auth.tenantId, council));
  },

  async [COUNCILS_ROUTES.get](req, ctx) {
    return ok(await mustGet(ctx, req));
  },

  async 'PUT /api/councils/:id'(req, ctx) {
    const input = validate<CouncilInput>(schema(ctx, 'council-update.json'), req.body);
    const current = await mustGet(ctx, req);
    const next: Council = { ...current, ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) };
    // A smaller council keeps a majority quorum unless one was given.
    if (input.members && input.quorum === undefined && next.quorum > next.members.length) next.quorum = defaultQuorum(next.members.length);
    await check(ctx, req, next);
    return ok(await store(ctx).replace(req.auth.tenantId, next));
  },

  async 'DELETE /api/councils/:id'(req, ctx) {
    const council = await mustGet(ctx, req);
    if (await new LaunchStore(ctx.db, ctx.sql).hasActive(req.auth.tenantId, council.id)) throw conflict(`council ${council.id} has a launch in progress; abort it first`);
    await store(ctx).remove(req.auth.tenantId, council.id);
    return noContent();
  },

  /** With an `idempotencyKey` already used by the tenant: 200 and that launch, nothing new started. */
  async [COUNCILS_ROUTES.launch](req, ctx, runner) {
    const input = validate<{ prompt: string; auto?: boolean; idempotencyKey?: string }>(schema(ctx, 'launch.json'), req.body);
    const council = await mustGet(ctx, req);
    const launches = new LaunchStore(ctx.db, ctx.sql);
    const repeated = async () => {
      const earlier = input.idempotencyKey ? await launches.byIdempotencyKey(req.auth.tenantId, input.idempotencyKey) : undefined;
      if (earlier && earlier.councilId !== council.id) throw conflict(`idempotencyKey "${input.idempotencyKey}" was used for launch ${earlier.id} of council ${earlier.councilId}`);
      return earlier && ok(launchView(earlier));
    };
    const earlier = await repeated();
    if (earlier) return earlier;
    try {
      return created(launchView(await launchCouncil(ctx, runner, { requestId: req.id }, req.auth.tenantId, council.id, input)));
    } catch (err) {
      // The same key asked twice at once: the other ask made the launch.
      const other = isUniqueViolation(err) ? await repeated() : undefined;
      if (other) return other;
      throw err;
    }
  },

  async 'GET /api/councils/:id/launches'(req, ctx) {
    const council = await mustGet(ctx, req);
    const { launches, ...rest } = await new LaunchStore(ctx.db, ctx.sql).list(req.auth.tenantId, { councilId: council.id }, page(req.query));
    return ok({ launches: launches.map(launchView), ...rest });
  },
};
