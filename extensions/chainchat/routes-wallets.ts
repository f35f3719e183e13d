// Chainchat's side of its contract (contract.ts), internal routes only: the tenant's external wallets
// (listed, their on-chain messages, the owner's grant) for credits' /api/wallets/*, and agent-to-agent
// messages handed in by the messaging extension to be sent on-chain.
import { validate } from '../../protocol/validate.js';
import type { RouteHandler } from '../../sdk/extension.js';
import { ok, page, queryString } from '../../sdk/http.js';
import { requireRole } from '../../sdk/roles.js';
import { mustBeAddress } from './addresses.js';
import type { AgentMessageOnchain } from './contract.js';
import { queueAgentMessage } from './onchain-agent-messages.js';
import { schema } from './routes.js';
import type { State } from './state.js';
import { grantCredits, listWallets, walletMessages } from './wallets.js';

export const walletRoutes: Record<string, RouteHandler<State>> = {
  async 'GET /api/internal/chainchat/wallets'(req, _ctx, s) {
    return ok(await listWallets(s, req.auth.tenantId, { ...page(req.query), search: queryString(req.query, 'search') }));
  },

  async 'GET /api/internal/chainchat/wallets/:address/messages'(req, _ctx, s) {
    return ok(await walletMessages(s, req.auth.tenantId, mustBeAddress(req.params.address!, 'the address'), page(req.query)));
  },

  async 'POST /api/internal/chainchat/wallets/:address/credits'(req, ctx, s) {
    requireRole(req.auth, 'owner', 'granting credits');
    const body = validate<{ microUnits: number; reason?: string }>(schema(ctx, 'wallet-grant.json'), req.body);
    const address = mustBeAddress(req.params.address!, 'the address');
    const granted = await grantCredits(s, req.auth.tenantId, address, body.microUnits);
    ctx.host.audit('chainchat.credits_granted', `address:${address}`, { microUnits: body.microUnits, reason: body.reason ?? 'granted' });
    return ok(granted);
  },

  async 'POST /api/internal/chainchat/agent-messages'(req, ctx, s) {
    const message = validate<AgentMessageOnchain>(schema(ctx, 'agent-message.json'), req.body);
    return ok(await queueAgentMessage(s, req.auth.tenantId, message));
  },
};
