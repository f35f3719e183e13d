// /api/skill-bundles CRUD and the built-in presets.
import { notFound } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, noContent, ok, page, queryString } from '../../sdk/http.js';
import type { BundleInput } from './bundles.js';
import { schema, stores } from './context.js';
import { PRESETS, presetNamed } from './presets.js';

export const bundleRoutes: Record<string, RouteHandler> = {
  async 'GET /api/skill-bundles'(req, ctx) {
    return ok(await stores(ctx).bundles.list(req.auth.tenantId, { ...page(req.query), search: queryString(req.query, 'search') }));
  },

  async 'POST /api/skill-bundles'(req, ctx) {
    const input = validate<BundleInput & { name: string }>(schema(ctx, 'bundle-create.json'), req.body);
    return created(await stores(ctx).bundles.create(req.auth.tenantId, input));
  },

  'GET /api/skill-bundles/presets'() {
    return ok({ presets: PRESETS });
  },

  async 'POST /api/skill-bundles/presets/:name/clone'(req, ctx) {
    const preset = presetNamed(req.params.name!);
    if (!preset) throw notFound(`skill-bundle preset "${req.params.name}" (presets: ${PRESETS.map((p) => p.name).join(', ')})`);
    const body = validate<{ name?: string }>(schema(ctx, 'preset-clone.json'), req.body ?? {});
    const bundle = await stores(ctx).bundles.create(req.auth.tenantId, { ...preset, name: body.name ?? preset.name }, preset.name);
    return created(bundle);
  },

  async 'GET /api/skill-bundles/:id'(req, ctx) {
    const bundle = await stores(ctx).bundles.get(req.auth.tenantId, req.params.id!);
    if (!bundle) throw notFound(`skill bundle ${req.params.id}`);
    return ok(bundle);
  },

  async 'PUT /api/skill-bundles/:id'(req, ctx) {
    const input = validate<BundleInput>(schema(ctx, 'bundle-update.json'), req.body);
    const bundle = await stores(ctx).bundles.update(req.auth.tenantId, req.params.id!, input);
    if (!bundle) throw notFound(`skill bundle ${req.params.id}`);
    return ok(bundle);
  },

  async 'DELETE /api/skill-bundles/:id'(req, ctx) {
    if (!(await stores(ctx).bundles.remove(req.auth.tenantId, req.params.id!))) throw notFound(`skill bundle ${req.params.id}`);
    return noContent();
  },
};
