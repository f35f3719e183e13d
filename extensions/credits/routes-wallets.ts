// The seed's /api/wallets/*: external wallets — the on-chain senders who pay, in credits, for what the
// agents do for them. They are chainchat's (its participants), read through chainchat's contract: the
// summary, a wallet's on-chain messages, the owner's grant. An agent's own wallet (rw_…) is credits'
// ledger; these routes still answer it as before for older clients (its ledger entries, a grant), and
// the summary lists agent wallets with kind=agent.
import { notFound, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { upstreamError } from '../../sdk/host-client.js';
import { ok, page, queryString } from '../../sdk/http.js';
import { requireRole } from '../../sdk/roles.js';
import { chainchatClient, isExternalAddress } from '../chainchat/contract.js';
import { resolveWallet } from './agents-client.js';
import { announceBalance } from './announce.js';
import { Ledger } from './ledger.js';
import { requireMonthlyRoom } from './monthly.js';
import { Reservations } from './reservations.js';
import { schema } from './schemas.js';
import { Spending } from './spending.js';
import { syncTenantWallets } from './sync.js';

const notLoaded = (reply: { status: number; body: { code?: string } | null }) => reply.status === 404 && reply.body?.code === 'ROUTE_NOT_FOUND';

/** The query as the client gave it, passed on to chainchat (which checks it as this route would). */
const passOn = (req: RouteRequest) => Object.fromEntries(['limit', 'offset', 'total', 'search'].map((k) => [k, queryString(req.query, k)]));

function kindOf(req: RouteRequest): 'external' | 'agent' {
  const kind = queryString(req.query, 'kind') ?? 'external';
  if (kind !== 'external' && kind !== 'agent') throw validationError('query.kind must be external or agent');
  return kind;
}

export const walletRoutes: Record<string, RouteHandler> = {
  async 'GET /api/wallets/summary'(req, ctx) {
    if (kindOf(req) === 'external') {
      page(req.query); // a bad page is this route's 400, whether or not chainchat is loaded
      const reply = await chainchatClient(ctx.host, { requestId: req.id }).wallets(passOn(req));
      // Without chainchat there are no external wallets.
      if (notLoaded(reply)) return ok({ wallets: [], hasMore: false, total: 0 });
      if (reply.status !== 200) throw upstreamError(reply, 'listing external wallets', 'chainchat');
      return ok(reply.body);
    }
    const tenantId = req.auth.tenantId;
    await syncTenantWallets(ctx, { requestId: req.id }, tenantId);
    const { wallets, total, hasMore } = await new Ledger(ctx.db, ctx.sql).list(tenantId, { ...page(req.query), search: queryString(req.query, 'search') });
    const addresses = wallets.map((w) => w.address);
    const held = await Reservations.heldByWallet(ctx.db, tenantId, addresses);
    const spent = await Spending.todayByWallet(ctx.db, tenantId, addresses);
    return ok({ wallets: wallets.map((w) => ({ ...w, reserved: held.get(w.address) ?? 0, spentToday: spent.get(w.address) ?? 0 })), ...(total === undefined ? {} : { total }), hasMore });
  },

  async 'GET /api/wallets/:address/messages'(req, ctx) {
    const address = req.params.address!;
    if (isExternalAddress(address)) {
      page(req.query); // as above
      const reply = await chainchatClient(ctx.host, { requestId: req.id }).walletMessages(address, passOn(req));
      if (notLoaded(reply)) throw notFound(`wallet ${address}`);
      if (reply.status !== 200) throw upstreamError(reply, `reading wallet ${address}`, 'chainchat');
      return ok(reply.body);
    }
    const wallet = await resolveWallet(ctx, { requestId: req.id }, req.auth.tenantId, address);
    const paging = page(req.query);
    const { messages, total, hasMore } = await new Ledger(ctx.db, ctx.sql).transactions(req.auth.tenantId, wallet.address, paging);
    return ok({ wallet: wallet.address, agentId: wallet.agentId, messages, ...(total === undefined ? {} : { total }), hasMore, limit: paging.limit, offset: paging.offset });
  },

  async 'POST /api/wallets/:address/credits'(req, ctx) {
    requireRole(req.auth, 'owner', 'granting credits');
    const body = validate<{ microUnits: number; reason?: string }>(schema(ctx, 'amount.json'), req.body);
    const address = req.params.address!;
    if (isExternalAddress(address)) {
      const reply = await chainchatClient(ctx.host, { requestId: req.id }).grant(address, body);
      if (notLoaded(reply)) throw notFound(`wallet ${address}`);
      if (reply.status !== 200) throw upstreamError(reply, `granting credits to wallet ${address}`, 'chainchat');
      return ok(reply.body);
    }
    const wallet = await resolveWallet(ctx, { requestId: req.id }, req.auth.tenantId, address);
    await requireMonthlyRoom(ctx.host, ctx.db, req.auth.tenantId, wallet, body.microUnits);
    const { balance, transaction } = await new Ledger(ctx.db, ctx.sql).credit(req.auth.tenantId, wallet.address, { kind: 'grant', microUnits: body.microUnits, reason: body.reason ?? 'granted', reference: 'grant', actor: req.auth.actor });
    announceBalance(ctx, { tenantId: req.auth.tenantId, agentId: wallet.agentId, wallet: wallet.address, balance });
    return ok({ wallet: wallet.address, agentId: wallet.agentId, balance, transaction });
  },
};
