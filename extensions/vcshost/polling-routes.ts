// /api/mention-polling: the tenant's polled repositories, their activity, and the service's stats.
import { join } from 'node:path';
import { conflict, notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { created, noContent, ok, page } from '../../sdk/http.js';
import { normaliseRepo } from './lists.js';
import { type PollInput, toPoll } from './polls-store.js';
import type { State } from './state.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);

async function mustGet(req: RouteRequest, state: State) {
  const row = await state.poller.store.get(req.auth.tenantId, req.params.id!);
  if (!row) throw notFound(`mention-polling config ${req.params.id}`);
  return row;
}

export const pollingRoutes: Record<string, RouteHandler<State>> = {
  async 'GET /api/mention-polling'(req, _ctx, state) {
    return ok({ configs: (await state.poller.store.list(req.auth.tenantId)).map(toPoll) });
  },

  async 'POST /api/mention-polling'(req, ctx, state) {
    const input = validate<PollInput>(schema(ctx, 'polling-create.json'), req.body);
    const row = await state.poller.store.create(req.auth.tenantId, { ...input, repo: normaliseRepo(input.repo) });
    if (!row) throw conflict(`${input.repo} is polled already`);
    state.poller.kick();
    return created(toPoll(row));
  },

  async 'GET /api/mention-polling/stats'(req, _ctx, state) {
    return ok({ ...(await state.poller.store.stats(req.auth.tenantId)), rateLimit: state.poller.rateLimit });
  },

  async 'GET /api/mention-polling/:id'(req, _ctx, state) {
    return ok(toPoll(await mustGet(req, state)));
  },

  async 'PUT /api/mention-polling/:id'(req, ctx, state) {
    const input = validate<Partial<PollInput>>(schema(ctx, 'polling-update.json'), req.body);
    const row = await state.poller.store.update(req.auth.tenantId, (await mustGet(req, state)).id, input);
    state.poller.kick();
    return ok(toPoll(row!));
  },

  async 'DELETE /api/mention-polling/:id'(req, _ctx, state) {
    await state.poller.store.remove(req.auth.tenantId, (await mustGet(req, state)).id);
    return noContent();
  },

  async 'GET /api/mention-polling/:id/activity'(req, _ctx, state) {
    const row = await mustGet(req, state);
    return ok({ ...toPoll(row), activity: await state.poller.store.activity(row.id, page(req.query).limit) });
  },
};
