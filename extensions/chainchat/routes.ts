// Chainchat's status, network switch, conversations, the memories backfill, and the test clock.
import { join } from 'node:path';
import { conflict, forbidden, RoostError } from '../../protocol/errors.js';
import { validate } from '../../protocol/validate.js';
import type { ExtensionContext, RouteHandler } from '../../sdk/extension.js';
import { ok } from '../../sdk/http.js';
import { requireRole } from '../../sdk/roles.js';
import { mustBeAddress } from './addresses.js';
import type { Network } from './config.js';
import { backfill } from './onchain-memories.js';
import { chainOf } from './chain.js';
import type { State } from './state.js';

export const schema = (ctx: ExtensionContext, name: string) => join(ctx.init.plugin.dir, 'schemas', name);

/** The node's part of the status when no node was asked. */
const NOT_ASKED = { algodReachable: null, lastRound: null, genesisId: null, balance: null, error: null };

const GENESIS: Record<Network, string> = { testnet: 'testnet-v1.0', mainnet: 'mainnet-v1.0' };

export const routes: Record<string, RouteHandler<State>> = {
  async 'GET /api/chainchat/status'(req, _ctx, s) {
    const account = await s.accounts.find(req.auth.tenantId);
    // Not set up: nothing is asked of any node (a fresh server makes no outbound connection).
    if (!account) return ok({ enabled: false, network: s.config.defaultNetwork, address: null, x25519PublicKey: null, lastRoundSeen: null, ...NOT_ASKED });
    const chain = chainOf(s, account);
    let node: { algodReachable: boolean; lastRound: number | null; genesisId: string | null; balance: string | null; error: string | null };
    try {
      const [lastRound, genesisId, balance] = await Promise.all([chain.lastRound(), chain.genesisId(), chain.balance(account.address)]);
      node = { algodReachable: true, lastRound, genesisId, balance: balance.toString(), error: null };
    } catch (err) {
      node = { algodReachable: false, lastRound: null, genesisId: null, balance: null, error: (err as Error).message };
    }
    return ok({
      enabled: true, network: account.network, address: account.address, x25519PublicKey: account.x25519.publicKey.toString('base64url'),
      lastRoundSeen: account.lastRound, ...node,
    });
  },

  async 'POST /api/chainchat/network'(req, ctx, s) {
    requireRole(req.auth, 'owner', 'switching the chainchat network');
    const { network } = validate<{ network: Network }>(schema(ctx, 'network.json'), req.body);
    const account = await s.accounts.of(req.auth.tenantId);
    const chain = s.chain(network);
    let genesisId: string | undefined;
    try {
      genesisId = await chain.genesisId();
    } catch (err) {
      if (network === 'mainnet') throw new RoostError('UPSTREAM_ERROR', `mainnet cannot be switched on: its node does not answer (${(err as Error).message})`, { status: 502 });
    }
    if (genesisId !== undefined && genesisId !== GENESIS[network]) throw conflict(`the ${network} node at the configured URL serves ${genesisId}, not ${GENESIS[network]}`);
    if (network === 'mainnet') {
      const balance = await chain.balance(account.address);
      if (balance < BigInt(s.config.mainnetMinBalance)) {
        throw conflict(`mainnet needs a funded account: ${account.address} holds ${balance} microAlgos on mainnet, and sending needs at least ${s.config.mainnetMinBalance} (ROOST_EXT_CHAINCHAT_MAINNET_MIN_BALANCE); fund it and retry`);
      }
    }
    if (network !== account.network) {
      await s.accounts.setNetwork(req.auth.tenantId, network);
      ctx.host.audit('chainchat.network_switched', `tenant:${req.auth.tenantId}`, { from: account.network, to: network });
    }
    return ok({ network, address: account.address });
  },

  async 'POST /api/chainchat/conversations'(req, ctx, s) {
    const body = validate<{ limit?: number; offset?: number; participant?: string; messages?: number }>(schema(ctx, 'conversations.json'), req.body ?? {});
    const tenantId = req.auth.tenantId;
    if (body.participant !== undefined) {
      const address = mustBeAddress(body.participant, 'body.participant');
      const participant = await s.conversations.participant(tenantId, address);
      const conversations = participant ? [{ ...participant, messages: await s.conversations.messages(tenantId, address, body.messages ?? 50) }] : [];
      return ok({ conversations, hasMore: false });
    }
    const page = await s.conversations.list(tenantId, { limit: body.limit ?? 50, offset: body.offset ?? 0 });
    if (!body.messages) return ok(page);
    const conversations = await Promise.all(page.conversations.map(async (c) => ({ ...c, messages: await s.conversations.messages(tenantId, c.address, body.messages!) })));
    return ok({ conversations, hasMore: page.hasMore });
  },

  async 'POST /api/memories/backfill'(req, _ctx, s) {
    requireRole(req.auth, 'operator', 'sending memories on-chain');
    const result = await backfill(s, req.auth.tenantId);
    return ok(result);
  },

  async 'POST /api/internal/chainchat/test-clock'(req, ctx, s) {
    if (!s.clock.isTest) throw forbidden('the chainchat clock moves by hand only with ROOST_CLOCK=test');
    const { advanceMs } = validate<{ advanceMs: number }>(schema(ctx, 'test-clock.json'), req.body);
    return ok({ now: s.clock.advance(advanceMs).toISOString() });
  },
};
