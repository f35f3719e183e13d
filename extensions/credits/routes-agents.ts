// Credits seen from an agent: balance, funding, daily spending and the daily spending cap.
import { notFound, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { noContent, ok, queryString } from '../../sdk/http.js';
import { todayUtc } from './amounts.js';
import { resolveAgent } from './agents-client.js';
import { announceBalance } from './announce.js';
import { CREDITS_ROUTES, type BalanceReply } from './contract.js';
import { Ledger } from './ledger.js';
import { requireMonthlyRoom } from './monthly.js';
import { Reservations } from './reservations.js';
import { requireRole } from '../../sdk/roles.js';
import { schema } from './schemas.js';
import { Spending } from './spending.js';

const agentOf = (req: RouteRequest, ctx: ExtensionContext) => resolveAgent(ctx, { requestId: req.id }, req.auth.tenantId, req.params.id!);

function spendingDays(query: Record<string, string | string[]>): number {
  const raw = queryString(query, 'days');
  if (raw === undefined) return 30;
  const days = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(days) || days < 1 || days > 366) throw validationError('query.days must be an integer from 1 to 366');
  return days;
}

export const agentCreditRoutes: Record<string, RouteHandler> = {
  async [CREDITS_ROUTES.balance](req, ctx) {
    const { agent, wallet } = await agentOf(req, ctx);
    const reservations = new Reservations(ctx.db);
    for (const change of await reservations.expire({ tenantId: req.auth.tenantId, wallet: wallet.address })) announceBalance(ctx, change);
    const current = (await new Ledger(ctx.db, ctx.sql).wallet(req.auth.tenantId, wallet.address))!;
    return ok({ agentId: agent.id, wallet: wallet.address, balance: current.balance, reserved: await Reservations.heldTotal(ctx.db, req.auth.tenantId, wallet.address), unit: 'microUnits' } satisfies BalanceReply);
  },

  async 'POST /api/agents/:id/fund'(req, ctx) {
    requireRole(req.auth, 'operator', 'funding an agent');
    const body = validate<{ microUnits: number; reason?: string }>(schema(ctx, 'amount.json'), req.body);
    const { agent, wallet } = await agentOf(req, ctx);
    await requireMonthlyRoom(ctx.host, ctx.db, req.auth.tenantId, wallet, body.microUnits);
    const { balance, transaction } = await new Ledger(ctx.db, ctx.sql).credit(req.auth.tenantId, wallet.address, { kind: 'fund', microUnits: body.microUnits, reason: body.reason ?? 'funded', reference: 'fund', actor: req.auth.actor });
    announceBalance(ctx, { tenantId: req.auth.tenantId, agentId: agent.id, wallet: wallet.address, balance });
    return ok({ agentId: agent.id, wallet: wallet.address, balance, transaction });
  },

  async 'GET /api/agents/:id/spending'(req, ctx) {
    const days = spendingDays(req.query);
    const { agent, wallet } = await agentOf(req, ctx);
    const tenantId = req.auth.tenantId;
    const daily = await new Spending(ctx.db).daily(tenantId, wallet.address, days);
    const todayTotal = await Spending.today(ctx.db, tenantId, wallet.address);
    const cap = await Spending.cap(ctx.db, tenantId, agent.id);
    return ok({
      agentId: agent.id,
      wallet: wallet.address,
      daily,
      today: { date: todayUtc(), total: todayTotal },
      cap: cap === null ? null : { dailyLimit: cap, remaining: Math.max(0, cap - todayTotal) },
    });
  },

  async 'PUT /api/agents/:id/spending-cap'(req, ctx) {
    requireRole(req.auth, 'operator', 'setting a spending cap');
    const { dailyLimit } = validate<{ dailyLimit: number }>(schema(ctx, 'spending-cap.json'), req.body);
    const { agent } = await agentOf(req, ctx);
    return ok({ agentId: agent.id, ...(await new Spending(ctx.db).setCap(req.auth.tenantId, agent.id, dailyLimit)) });
  },

  async 'DELETE /api/agents/:id/spending-cap'(req, ctx) {
    requireRole(req.auth, 'operator', 'removing a spending cap');
    const { agent } = await agentOf(req, ctx);
    if (!(await new Spending(ctx.db).removeCap(req.auth.tenantId, agent.id))) throw notFound(`spending cap of agent ${agent.id}`);
    return noContent();
  },
};
