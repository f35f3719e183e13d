// /api/webhooks: outbound registrations (URL, events, optional repo, secret) and their deliveries. The
// secret is returned once, when it is made; it is stored sealed.
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { created, noContent, ok, page } from '../../sdk/http.js';
import { checkTarget } from '../../sdk/reach.js';
import type { State } from './state.js';
import { toRegistration, WebhookStore, type RegistrationInput } from './webhook-store.js';

const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);
const store = (ctx: ExtensionContext) => new WebhookStore(ctx.db);

async function mustGet(req: RouteRequest, ctx: ExtensionContext) {
  const row = await store(ctx).row(req.auth.tenantId, req.params.id!);
  if (!row) throw notFound(`webhook ${req.params.id}`);
  return row;
}

async function seal(state: State, id: string, secret: string): Promise<string> {
  return (await state.sealer()).seal(secret, `webhook:${id}`);
}

export const webhookRoutes: Record<string, RouteHandler<State>> = {
  async 'GET /api/webhooks'(req, ctx) {
    return ok({ webhooks: await store(ctx).list(req.auth.tenantId) });
  },

  async 'POST /api/webhooks'(req, ctx, state) {
    const input = validate<RegistrationInput & { secret?: string }>(schema(ctx, 'webhook-create.json'), req.body);
    await checkTarget(state.deliverer.config.reach, req.auth.tenantId, input.url, 'body.url');
    const secret = input.secret ?? randomBytes(32).toString('hex');
    const id = randomUUID(); // the sealing context
    const { secret: _given, ...fields } = input;
    const row = await store(ctx).create(req.auth.tenantId, id, fields, await seal(state, id, secret));
    ctx.host.audit('webhook.created', `webhook:${row.id}`, { url: row.url, events: input.events });
    return created({ ...toRegistration(row), secret });
  },

  async 'GET /api/webhooks/deliveries'(req, ctx) {
    return ok({ deliveries: await store(ctx).deliveries(req.auth.tenantId, undefined, page(req.query).limit) });
  },

  async 'GET /api/webhooks/:id'(req, ctx) {
    return ok(toRegistration(await mustGet(req, ctx)));
  },

  async 'PUT /api/webhooks/:id'(req, ctx, state) {
    const input = validate<Partial<RegistrationInput> & { secret?: string }>(schema(ctx, 'webhook-update.json'), req.body);
    const row = await mustGet(req, ctx);
    if (input.url !== undefined) await checkTarget(state.deliverer.config.reach, req.auth.tenantId, input.url, 'body.url');
    const { secret, ...fields } = input;
    const updated = await store(ctx).update(req.auth.tenantId, row.id, fields, secret === undefined ? undefined : await seal(state, row.id, secret));
    return ok(toRegistration(updated!));
  },

  async 'DELETE /api/webhooks/:id'(req, ctx) {
    const row = await mustGet(req, ctx);
    await store(ctx).remove(req.auth.tenantId, row.id);
    ctx.host.audit('webhook.deleted', `webhook:${row.id}`, { url: row.url });
    return noContent();
  },

  async 'GET /api/webhooks/:id/deliveries'(req, ctx) {
    const row = await mustGet(req, ctx);
    return ok({ deliveries: await store(ctx).deliveries(req.auth.tenantId, row.id, page(req.query).limit) });
  },
};
