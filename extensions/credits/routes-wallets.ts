// Wallets of the tenant: the summary with balances, a wallet's ledger entries, owner grants.
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { ok, page, queryString } from '../../sdk/http.js';
import { resolveWallet } from './agents-client.js';
import { announceBalance } from './announce.js';
import { Ledger } from './ledger.js';
import { requireMonthlyRoom } from './monthly.js';
import { Reservations } from './reservations.js';
import { requireRole } from '../../sdk/roles.js';
import { schema } from './schemas.js';
import { Spending } from './spending.js';
import { syncTenantWallets } from './sync.js';

export const walletRoutes: Record<string, RouteHandler> = {
  async 'GET /api/wallets/summary'(req, ctx) {
    const tenantId = req.auth.tenantId;
    await syncTenantWallets(ctx, { requestId: req.id }, tenantId);
    const { wallets, total, hasMore } = await new Ledger(ctx.db, ctx.sql).list(tenantId, { ...page(req.query), search: queryString(req.query, 'search') });
    const addresses = wallets.map((w) => w.address);
    const held = await Reservations.heldByWallet(ctx.db, tenantId, addresses);
    const spent = await Spending.todayByWallet(ctx.db, tenantId, addresses);
    return ok({ wallets: wallets.map((w) => ({ ...w, reserved: held.get(w.address) ?? 0, spentToday: spent.get(w.address) ?? 0 })), ...(total === undefined ? {} : { total }), hasMore });
  },

  async 'GET /api/wallets/:address/messages'(req, ctx) {
    const wallet = await resolveWallet(ctx, { requestId: req.id }, req.auth.tenantId, req.params.address!);
    const paging = page(req.query);
    const { messages, total, hasMore } = await new Ledger(ctx.db, ctx.sql).transactions(req.auth.tenantId, wallet.address, paging);
    return ok({ wallet: wallet.address, agentId: wallet.agentId, messages, ...(total === undefined ? {} : { total }), hasMore, limit: paging.limit, offset: paging.offset });
  },

  async 'POST /api/wallets/:address/credits'(req, ctx) {
    requireRole(req.auth, 'owner', 'granting credits');
    const body = validate<{ microUnits: number; reason?: string }>(schema(ctx, 'amount.json'), req.body);
    const wallet = await resolveWallet(ctx, { requestId: req.id }, req.auth.tenantId, req.params.address!);
    await requireMonthlyRoom(ctx.host, ctx.db, req.auth.tenantId, wallet, body.microUnits);
    const { balance, transaction } = await new Ledger(ctx.db, ctx.sql).credit(req.auth.tenantId, wallet.address, { kind: 'grant', microUnits: body.microUnits, reason: body.reason ?? 'granted', reference: 'grant', actor: req.auth.actor });
    announceBalance(ctx, { tenantId: req.auth.tenantId, agentId: wallet.agentId, wallet: wallet.address, balance });
    return ok({ wallet: wallet.address, agentId: wallet.agentId, balance, transaction });
  },
};
