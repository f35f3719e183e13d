// External wallets: the addresses that write to a tenant's chainchat account. Each is a participant
// (cc_participants): its credits — bought with its payments, granted by the owner, spent on its agent's
// turns — and its on-chain messages (cc_messages). Read through chainchat's contract by the seed's
// /api/wallets/* (served by credits).
import { notFound } from '../../protocol/errors.js';
import { containing, likeClause, paged, type PageRequest } from '../../sdk/db.js';
import type { SqlValue } from '../../sdk/sql.js';
import type { ExternalWallet, ExternalWalletMessage, WalletGrant, WalletMessagePage, WalletPage } from './contract.js';
import type { State } from './state.js';

interface WalletRow {
  address: string;
  credits: number | string;
  agent_id: string | null;
  session_id: string | null;
  created_at: string;
  last_message_at: string;
  message_count: number | string;
}

const toWallet = (r: WalletRow): ExternalWallet => ({
  address: r.address, kind: 'external', balance: Number(r.credits), unit: 'microUnits', agentId: r.agent_id, sessionId: r.session_id,
  messageCount: Number(r.message_count), createdAt: r.created_at, lastMessageAt: r.last_message_at,
});

const COLUMNS = `p.address, p.credits, p.agent_id, p.session_id, p.created_at, p.last_message_at,
  (SELECT COUNT(*) FROM cc_messages m WHERE m.tenant_id = p.tenant_id AND m.participant = p.address) AS message_count`;

/** The tenant's external wallets, oldest first; `search` matches the address or its allowlist label. */
export async function listWallets(s: State, tenantId: string, page: PageRequest & { search?: string }): Promise<WalletPage> {
  let from = 'cc_participants p WHERE p.tenant_id = ?';
  const params: SqlValue[] = [tenantId];
  if (page.search) {
    const like = containing(page.search);
    const label = `EXISTS (SELECT 1 FROM cc_allowlist a WHERE a.tenant_id = p.tenant_id AND a.address = p.address AND ${likeClause(s.ctx.sql.dialect, 'a.label')})`;
    from += ` AND (${likeClause(s.ctx.sql.dialect, 'p.address')} OR ${label})`;
    params.push(like, like);
  }
  const { rows, total, hasMore } = await paged<WalletRow>(s.ctx.sql, { columns: COLUMNS, from, params, orderBy: 'p.created_at, p.address' }, page);
  return { wallets: rows.map(toWallet), hasMore, ...(total === undefined ? {} : { total }) };
}

async function mustGetWallet(s: State, tenantId: string, address: string) {
  const participant = await s.conversations.participant(tenantId, address);
  if (!participant) throw notFound(`wallet ${address}`);
  return participant;
}

/** An external wallet's on-chain messages, newest first. */
export async function walletMessages(s: State, tenantId: string, address: string, page: PageRequest): Promise<WalletMessagePage> {
  const participant = await mustGetWallet(s, tenantId, address);
  const { messages, total, hasMore } = await s.conversations.page(tenantId, address, page);
  const shown: ExternalWalletMessage[] = messages.map((m) => ({ id: m.id, direction: m.direction, content: m.content, txid: m.txids[0] ?? null, txids: m.txids, createdAt: m.createdAt }));
  return { wallet: address, kind: 'external', balance: participant.credits, messages: shown, hasMore, ...(total === undefined ? {} : { total }), limit: page.limit, offset: page.offset };
}

/**
 * The owner's grant of free credits to an external wallet. The address must be known to the tenant: it
 * wrote to the account, or it is on the allowlist or a PSK contact's (then its wallet opens here).
 */
export async function grantCredits(s: State, tenantId: string, address: string, microUnits: number): Promise<WalletGrant> {
  const known = (await s.conversations.participant(tenantId, address)) ?? (await s.allowlist.get(tenantId, address)) ?? (await s.contacts.byAddress(tenantId, address));
  if (!known) throw notFound(`wallet ${address}`);
  await s.conversations.ensure(tenantId, address, s.config.initialCredits);
  const balance = await s.conversations.addCredits(tenantId, address, microUnits);
  return { wallet: address, kind: 'external', granted: microUnits, balance, unit: 'microUnits' };
}
