// Internal routes for the sessions extension (declared internal: reachable only through `call`):
// reserve before an agent's turn, then commit its actual cost or release the hold.
import { toRoostError, validationError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler, RouteRequest } from '../../sdk/extension.js';
import { created, ok, queryString } from '../../sdk/http.js';
import { resolveAgent, resolveWallet } from './agents-client.js';
import { announceBalance } from './announce.js';
import { ConfigStore, type CreditConfig } from './config.js';
import { spentBetween } from './monthly.js';
import type { BalanceChange } from './ledger.js';
import { Ledger } from './ledger.js';
import { Reservations } from './reservations.js';
import { schema } from './schemas.js';
import { CREDITS_EVENTS, CREDITS_ROUTES, type ClaimRequest, type CommitReply, type CommitRequest, type CreditsSpent, type ReserveReply, type ReserveRequest, type UsageReply } from './contract.js';

type ReserveBody = ReserveRequest;

async function walletFor(req: RouteRequest, ctx: ExtensionContext, body: ReserveBody) {
  const as = { requestId: req.id };
  if (body.agentId !== undefined && body.wallet === undefined && body.provider !== undefined && body.model !== undefined) {
    // A wallet opened before is known here (agent deletions reach it as events); with the provider and
    // model given, nothing else is needed from the agent: no call to agents for each turn of a session.
    const known = await new Ledger(ctx.db, ctx.sql).walletOfAgent(req.auth.tenantId, body.agentId);
    if (known) return { wallet: known, provider: body.provider, model: body.model };
  }
  if (body.agentId !== undefined) {
    const { agent, wallet } = await resolveAgent(ctx, as, req.auth.tenantId, body.agentId);
    if (body.wallet !== undefined && body.wallet !== wallet.address) throw validationError(`body.wallet ${body.wallet} is not the wallet of agent ${agent.id}`);
    return { wallet, provider: body.provider ?? agent.provider, model: body.model ?? agent.model };
  }
  const wallet = await resolveWallet(ctx, as, req.auth.tenantId, body.wallet!);
  return { wallet, provider: body.provider ?? null, model: body.model ?? null };
}

const announce = (ctx: ExtensionContext, changes: Array<BalanceChange | undefined>) => {
  for (const change of changes) if (change) announceBalance(ctx, change);
};

async function reserveOne(req: RouteRequest, ctx: ExtensionContext, body: ReserveBody, config: CreditConfig, found?: Awaited<ReturnType<typeof walletFor>>) {
  const { wallet, provider, model } = found ?? (await walletFor(req, ctx, body));
  if (wallet.agentDeleted) throw validationError(`the agent of wallet ${wallet.address} has been deleted`);
  const reservations = new Reservations(ctx.db);
  announce(ctx, await reservations.expire({ tenantId: req.auth.tenantId, wallet: wallet.address }));
  const request = { sessionId: body.sessionId, microUnits: body.microUnits ?? config.reservePerTurn, provider, model, ttlSeconds: body.ttlSeconds ?? config.reservationTtlSeconds };
  const { reservation, change } = await reservations.reserve(req.auth.tenantId, wallet, request, config.enabled);
  announce(ctx, [change]);
  return { reservationId: reservation.id, enforced: config.enabled, reservation, ...(change ? { balance: change.balance } : {}) } satisfies ReserveReply;
}

export const internalRoutes: Record<string, RouteHandler> = {
  /** For billing: credits the caller's tenant spent on turns in [from, to) (ISO 8601), by day. */
  async [CREDITS_ROUTES.usage](req, ctx) {
    const from = isoQuery(req.query, 'from');
    const to = isoQuery(req.query, 'to');
    if (from >= to) throw validationError('query.from must be before query.to');
    return ok({ tenantId: req.auth.tenantId, unit: 'microUnits', ...(await spentBetween(ctx.db, req.auth.tenantId, from, to)) } satisfies UsageReply);
  },

  async [CREDITS_ROUTES.reserve](req, ctx) {
    const body = validate<ReserveBody>(schema(ctx, 'reservation.json'), req.body);
    const config = await new ConfigStore(ctx.db, ctx.sql).get(req.auth.tenantId);
    return created(await reserveOne(req, ctx, body, config));
  },

  /**
   * Several reservations at once (a council reserves its members' turns before a stage): each is made
   * or refused on its own, as POST /api/credits/reservations would, and answered in order.
   */
  async [CREDITS_ROUTES.reserveBatch](req, ctx) {
    const { reservations } = validate<{ reservations: unknown[] }>(schema(ctx, 'reservation-batch.json'), req.body);
    const config = await new ConfigStore(ctx.db, ctx.sql).get(req.auth.tenantId);
    const failed = (err: unknown) => {
      const error = toRoostError(err);
      return { error: error.message, code: error.code, status: error.status };
    };
    // The wallets are found at once (a call to agents each, when not known); the holds are made in order.
    const found = await Promise.all(reservations.map(async (item, i) => {
      const body = validate<ReserveBody>(schema(ctx, 'reservation.json'), item, `body.reservations[${i}]`);
      return { body, wallet: await walletFor(req, ctx, body) };
    }).map((p) => p.catch(failed)));
    const results = [];
    for (const item of found) results.push('error' in item ? item : await reserveOne(req, ctx, item.body, config, item.wallet).catch(failed));
    return ok({ reservations: results });
  },

  /** A session takes over a hold made ahead of its turn; its commit or release then settles it. */
  async [CREDITS_ROUTES.claim](req, ctx) {
    const claim = validate<ClaimRequest>(schema(ctx, 'claim.json'), req.body);
    return ok({ reservation: await new Reservations(ctx.db).claim(req.auth.tenantId, req.params.id!, claim) });
  },

  async [CREDITS_ROUTES.commit](req, ctx) {
    const usage = validate<CommitRequest>(schema(ctx, 'commit.json'), req.body);
    const config = await new ConfigStore(ctx.db, ctx.sql).get(req.auth.tenantId);
    const { reservation, change } = await new Reservations(ctx.db).commit(req.auth.tenantId, req.params.id!, usage, config);
    announce(ctx, [change]);
    const charged = reservation.actualMicroUnits ?? 0;
    // Tenant-wide spending, for analytics.
    if (charged > 0) ctx.host.emit(CREDITS_EVENTS.spent, { agentId: reservation.agentId, wallet: reservation.wallet, sessionId: reservation.sessionId, microUnits: charged, date: new Date().toISOString().slice(0, 10) } satisfies CreditsSpent, req.auth.tenantId);
    return ok({ reservation, charged, ...(change ? { balance: change.balance } : {}) } satisfies CommitReply);
  },

  async [CREDITS_ROUTES.release](req, ctx) {
    const { reservation, change } = await new Reservations(ctx.db).release(req.auth.tenantId, req.params.id!);
    announce(ctx, [change]);
    return ok({ reservation, ...(change ? { balance: change.balance } : {}) });
  },
};

function isoQuery(query: Record<string, string | string[]>, name: string): string {
  const value = queryString(query, name);
  const ms = value === undefined ? NaN : Date.parse(value);
  if (Number.isNaN(ms)) throw validationError(`query.${name} must be an ISO 8601 timestamp`);
  return new Date(ms).toISOString();
}
