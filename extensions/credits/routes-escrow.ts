// Internal escrow routes (reachable only through `call`), for the marketplace: hold credits of one of the
// caller's agents for a payee agent (of any tenant), then release them to the payee or refund them.
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { created, ok } from '../../sdk/http.js';
import { resolveAgent } from './agents-client.js';
import { announceBalance } from './announce.js';
import { Escrows } from './escrow.js';
import { schema } from './schemas.js';
import { CREDITS_ROUTES, type EscrowHoldRequest } from './contract.js';

type HoldBody = EscrowHoldRequest;

export const escrowRoutes: Record<string, RouteHandler> = {
  async [CREDITS_ROUTES.holdEscrow](req, ctx) {
    const body = validate<HoldBody>(schema(ctx, 'escrow.json'), req.body);
    const payer = await resolveAgent(ctx, { requestId: req.id }, req.auth.tenantId, body.agentId);
    const payee = await resolveAgent(ctx, { tenantId: body.payee.tenantId }, body.payee.tenantId, body.payee.agentId);
    const { escrow, change } = await new Escrows(ctx.db).hold(req.auth.tenantId, payer.wallet, { tenantId: body.payee.tenantId, wallet: payee.wallet }, body.microUnits, body.reference ?? '', body.reason ?? '');
    announceBalance(ctx, change);
    return created({ escrow, balance: change.balance });
  },

  async [CREDITS_ROUTES.escrow](req, ctx) {
    return ok(await new Escrows(ctx.db).get(req.auth.tenantId, req.params.id!));
  },

  async [CREDITS_ROUTES.releaseEscrow](req, ctx) {
    const { escrow, change } = await new Escrows(ctx.db).release(req.auth.tenantId, req.params.id!);
    announceBalance(ctx, change);
    return ok({ escrow });
  },

  async [CREDITS_ROUTES.refundEscrow](req, ctx) {
    const { escrow, change } = await new Escrows(ctx.db).refund(req.auth.tenantId, req.params.id!);
    announceBalance(ctx, change);
    return ok({ escrow, balance: change.balance });
  },
};
