// The tenant's credit configuration.
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { ConfigStore, type CreditConfig } from './config.js';
import { requireRole } from '../../sdk/roles.js';
import { schema } from './schemas.js';

export const settingsRoutes: Record<string, RouteHandler> = {
  async 'GET /api/settings/credits'(req, ctx) {
    return ok(await new ConfigStore(ctx.db, ctx.sql).get(req.auth.tenantId));
  },

  async 'PUT /api/settings/credits'(req, ctx) {
    requireRole(req.auth, 'owner', 'changing the credit configuration');
    const patch = validate<Partial<CreditConfig>>(schema(ctx, 'credit-config.json'), req.body);
    const config = await new ConfigStore(ctx.db, ctx.sql).update(req.auth.tenantId, patch);
    ctx.host.audit('credits.config_updated', 'settings:credits', { changed: Object.keys(patch) });
    return ok(config);
  },
};
