// The feedback API: outcome rates, the week against the one before, and a summary for prompts. Each
// answers for the caller's tenant only.
import type { Knex } from 'knex';
import { validationError } from '../../protocol/errors.js';
import type { RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { ok, queryString } from '../../sdk/http.js';
import { compare, summary } from './analysis.js';
import { hotSpots, ratesBetween } from './rates.js';

const DAY_MS = 86_400_000;

function days(req: RouteRequest, fallback: number): number {
  const raw = queryString(req.query, 'days');
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 90) throw validationError(`query.days must be an integer from 1 to 90, got "${raw}"`);
  return n;
}

export const routes: Record<string, RouteHandler> = {
  async 'GET /api/feedback/metrics'(req, ctx) {
    const n = days(req, 7);
    const to = new Date();
    const from = new Date(to.getTime() - n * DAY_MS);
    return ok({ days: n, ...(await ratesBetween(ctx.db, req.auth.tenantId, from, to)), ...(await hotSpots(ctx.db, req.auth.tenantId, from, to)) });
  },

  async 'GET /api/feedback/analysis'(req, ctx) {
    const n = days(req, 7);
    const to = new Date();
    const middle = new Date(to.getTime() - n * DAY_MS);
    const from = new Date(middle.getTime() - n * DAY_MS);
    const [previous, current] = await Promise.all([ratesBetween(ctx.db, req.auth.tenantId, from, middle), ratesBetween(ctx.db, req.auth.tenantId, middle, to)]);
    const { changes, findings } = compare(previous, current);
    return ok({ days: n, previous, current, changes, findings, ...(await hotSpots(ctx.db, req.auth.tenantId, middle, to)) });
  },

  async 'GET /api/feedback/context'(req, ctx) {
    const n = days(req, 7);
    return ok({ days: n, context: await outcomeContext(ctx.db, req.auth.tenantId, n) });
  },
};

/** The few words of a tenant's outcomes over the last `n` days a prompt can carry ('' when nothing happened). */
export async function outcomeContext(db: Knex, tenantId: string, n: number): Promise<string> {
  const to = new Date();
  const from = new Date(to.getTime() - n * DAY_MS);
  return summary(await ratesBetween(db, tenantId, from, to), n, await hotSpots(db, tenantId, from, to));
}
