// Reading the audit log and verifying its hash chain. A tenant sees its own entries; the instance
// owner sees every entry and may filter by tenant.
import type Router from '@koa/router';
import { validate } from '../../../protocol/validate.js';
import { isInstanceOwner, requireInstanceOwner } from '../../auth/identity.js';
import type { Kernel } from '../../kernel.js';
import type { State } from '../app.js';

const MAX_PAGE = 500;

export function registerAuditRoutes(router: Router<State>, k: Kernel): void {
  router.get('/api/audit-log', async (ctx) => {
    const q = validate<Record<string, string | undefined>>('api/audit-query.json', { ...ctx.query }, 'query');
    const { identity } = ctx.state;
    const tenantId = isInstanceOwner(identity) ? q.tenantId : identity.tenantId;
    const limit = Math.min(Number(q.limit ?? 100), MAX_PAGE);
    const offset = Number(q.offset ?? 0);
    await k.audit.flush();
    const { entries, total } = await k.audit.query({ tenantId, action: q.action, actor: q.actor, resource: q.resource, since: q.since, until: q.until, limit, offset });
    ctx.body = { entries, total, limit, offset };
  });

  router.get('/api/audit-log/verify', async (ctx) => {
    requireInstanceOwner(ctx.state.identity);
    await k.audit.flush();
    ctx.body = await k.audit.verify();
  });
}
