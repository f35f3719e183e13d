// /api/mention-polling: the tenant's polled repositories, their activity, and the service's stats.
import { join } from 'node:path';
import { conflict, notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../_shared/extension.js';
import { created, noContent, ok, page } from '../_shared/http.js';
import { normaliseRepo } from './lists.js';
import { type PollInput, toPoll } from './polls-store.js';
import { state } from './state.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);
const store = () => state().poller.store;

async function mustGet(req: RouteRequest) {
  const row = await store().get(req.auth.tenantId, req.params.id!);
  if (!row) throw notFound(`mention-polling config ${req.params.id}`);
  return row;
}

export const pollingRoutes: Record<string, RouteHandler> = {
  async 'GET /api/mention-polling'(req) {
    return ok({ configs: (await store().list(req.auth.tenantId)).map(toPoll) });
  },

  async 'POST /api/mention-polling'(req, ctx) {
    const input = validate<PollInput>(schema(ctx, 'polling-create.json'), req.body);
    const row = await store().create(req.auth.tenantId, { ...input, repo: normaliseRepo(input.repo) });
    if (!row) throw conflict(`${input.repo} is polled already`);
    state().poller.kick();
    return created(toPoll(row));
  },

  async 'GET /api/mention-polling/stats'(req) {
    return ok({ ...(await store().stats(req.auth.tenantId)), rateLimit: state().poller.rateLimit });
  },

  async 'GET /api/mention-polling/:id'(req) {
    return ok(toPoll(await mustGet(req)));
  },

  async 'PUT /api/mention-polling/:id'(req, ctx) {
    const input = validate<Partial<PollInput>>(schema(ctx, 'polling-update.json'), req.body);
    const row = await store().update(req.auth.tenantId, (await mustGet(req)).id, input);
    state().poller.kick();
    return ok(toPoll(row!));
  },

  async 'DELETE /api/mention-polling/:id'(req) {
    await store().remove(req.auth.tenantId, (await mustGet(req)).id);
    return noContent();
  },

  async 'GET /api/mention-polling/:id/activity'(req) {
    const row = await mustGet(req);
    return ok({ ...toPoll(row), activity: await store().activity(row.id, page(req.query).limit) });
  },
};
