// The analytics extension: statistics kept from the sessions.lifecycle and credits.spent events.
import { validationError } from '../../protocol/errors.js';
import { runExtension, type ExtensionContext, type RouteRequest } from '../../sdk/extension.js';
import { ok, queryString } from '../../sdk/http.js';
import { migrations } from './migrations.js';
import { record } from './record.js';
import { agentsClient } from '../agents/contract.js';

const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);

function days(req: RouteRequest): number {
  const raw = queryString(req.query, 'days');
  const n = raw === undefined ? 30 : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 366) throw validationError('query.days must be an integer from 1 to 366');
  return n;
}

async function spendingSince(ctx: ExtensionContext, tenantId: string, since: string): Promise<number> {
  const [{ total }] = await ctx.db('daily_spending').where({ tenant_id: tenantId }).andWhere('date', '>=', since).sum({ total: 'total' });
  return Number(total ?? 0);
}

async function countBy(ctx: ExtensionContext, tenantId: string, column: string) {
  const rows: Array<Record<string, unknown>> = await ctx.db('sessions').where({ tenant_id: tenantId }).select(column).count({ count: '*' }).sum({ cost: 'cost' }).groupBy(column).orderBy(column);
  return rows.map((r) => ({ [column === 'agent_id' ? 'agentId' : column]: r[column], count: Number(r.count), cost: Number(r.cost ?? 0) }));
}

runExtension({
  migrations,
  async event(event, ctx) {
    if (!event.tenantId || typeof event.payload !== 'object' || event.payload === null) return;
    await record(ctx.db, event.topic, event.tenantId, event.payload as Record<string, unknown>);
  },
  routes: {
    async 'GET /api/analytics/overview'(req, ctx) {
      const tenantId = req.auth.tenantId;
      const byStatus: Record<string, number> = Object.fromEntries((await countBy(ctx, tenantId, 'status')).map((r) => [String(r.status), r.count]));
      const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
      const agents = await agentsClient(ctx.host, { requestId: req.id }).list({ limit: 1, total: true }).catch(() => undefined);
      return ok({
        sessions: { total, running: byStatus.running ?? 0, byStatus },
        agents: agents?.status === 200 ? (agents.body?.total ?? null) : null,
        spending: { today: await spendingSince(ctx, tenantId, day(0)), last7Days: await spendingSince(ctx, tenantId, day(6)), last30Days: await spendingSince(ctx, tenantId, day(29)) },
      });
    },
    async 'GET /api/analytics/spending'(req, ctx) {
      const n = days(req);
      const rows: Array<{ date: string; total: number }> = await ctx.db('daily_spending').where({ tenant_id: req.auth.tenantId }).andWhere('date', '>=', day(n - 1)).select('date').sum({ total: 'total' }).groupBy('date');
      const byDate = new Map(rows.map((r) => [r.date, Number(r.total)]));
      const series = Array.from({ length: n }, (_, i) => day(n - 1 - i)).map((date) => ({ date, total: byDate.get(date) ?? 0 }));
      return ok({ days: n, unit: 'microUnits', series });
    },
    async 'GET /api/analytics/sessions'(req, ctx) {
      const tenantId = req.auth.tenantId;
      return ok({ byAgent: await countBy(ctx, tenantId, 'agent_id'), bySource: await countBy(ctx, tenantId, 'source'), byStatus: await countBy(ctx, tenantId, 'status') });
    },
  },
});
