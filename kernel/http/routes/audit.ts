// Reading the audit log and verifying its hash chain against the signed checkpoint. A tenant sees its
// own entries; the instance owner sees every entry, may filter by tenant, and alone may verify.
import type Router from '@koa/router';
import { validationError } from '../../../protocol/errors.js';
import { validate } from '../../../protocol/validate.js';
import { isInstanceOwner, requireInstanceOwner } from '../../auth/identity.js';
import type { Kernel } from '../../kernel.js';
import type { State } from '../app.js';

/** What this module uses of the kernel. */
export type AuditRouteDeps = Pick<Kernel, 'audit'>;

const MAX_PAGE = 500;

export function registerAuditRoutes(router: Router<State>, k: AuditRouteDeps): void {
  router.get('/api/audit-log', async (ctx) => {
    const q = validate<Record<string, string | undefined>>('api/audit-query.json', { ...ctx.query }, 'query');
    const { identity } = ctx.state;
    const tenantId = isInstanceOwner(identity) ? q.tenantId : identity.tenantId;
    const limit = Math.min(Number(q.limit ?? 100), MAX_PAGE);
    const offset = Number(q.offset ?? 0);
    await k.audit.flush();
    const since = utc(q.since, 'since');
    const until = utc(q.until, 'until');
    const { entries, total } = await k.audit.query({ tenantId, action: q.action, actor: q.actor, resource: q.resource, since, until, limit, offset });
    ctx.body = { entries, total, limit, offset };
  });

  router.get('/api/audit-log/verify', async (ctx) => {
    requireInstanceOwner(ctx.state.identity);
    ctx.body = await k.audit.verify();
  });
}

/** Stored timestamps are UTC ISO strings compared as text, so a bound given with another offset is converted first. */
function utc(value: string | undefined, name: string): string | undefined {
  if (!value) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw validationError(`query.${name} is not a valid date-time`);
  return new Date(time).toISOString();
}
