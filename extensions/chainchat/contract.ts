// Chainchat's contract with its callers. External wallets — the on-chain addresses that write to a
// tenant's chainchat account, whose credits they buy with their payments — are chainchat's: credits
// serves the seed's /api/wallets/* from them through these routes. The messaging extension sends each
// agent-to-agent message on-chain through the last one. It imports nothing of chainchat's own code.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute, type Query } from '../../sdk/route-call.js';

export const CHAINCHAT_ROUTES = {
  wallets: 'GET /api/internal/chainchat/wallets',
  walletMessages: 'GET /api/internal/chainchat/wallets/:address/messages',
  grant: 'POST /api/internal/chainchat/wallets/:address/credits',
  sendAgentMessage: 'POST /api/internal/chainchat/agent-messages',
} as const;

/** Whether an address is an Algorand address (58 base32 characters), the form external wallets have. */
export const isExternalAddress = (address: string): boolean => /^[A-Z2-7]{58}$/.test(address);

/** An external wallet of a tenant: an address that wrote to its chainchat account (or was granted credits). */
export interface ExternalWallet {
  address: string;
  kind: 'external';
  /** Credits in microUnits (millionths of a credit): bought with payments, granted, spent on turns. */
  balance: number;
  unit: 'microUnits';
  /** The agent it talks to, once chosen or first served. */
  agentId: string | null;
  sessionId: string | null;
  messageCount: number;
  createdAt: string;
  lastMessageAt: string;
}

/** One on-chain message of an external wallet, either way. */
export interface ExternalWalletMessage {
  id: string;
  /** inbound (from the wallet), outbound (to it), refused (from it, not let in). */
  direction: 'inbound' | 'outbound' | 'refused';
  /** null for a refused message. */
  content: string | null;
  /** The transaction that carried it (its first, when split over several notes). */
  txid: string | null;
  txids: string[];
  createdAt: string;
}

export interface WalletPage {
  wallets: ExternalWallet[];
  hasMore: boolean;
  total?: number;
}

export interface WalletMessagePage {
  wallet: string;
  kind: 'external';
  balance: number;
  messages: ExternalWalletMessage[];
  hasMore: boolean;
  total?: number;
  limit: number;
  offset: number;
}

export interface WalletGrant {
  wallet: string;
  kind: 'external';
  granted: number;
  balance: number;
  unit: 'microUnits';
}

/** An agent-to-agent message to send on-chain, as the agents extension recorded it. */
export interface AgentMessageOnchain {
  id: string;
  from: string | null;
  to: string;
  content: string;
  thread: string | null;
  createdAt: string;
}

/**
 * What chainchat did with it: `queued` (it goes on-chain in the background and its txid is recorded on
 * the message then), or not, and why (`reason`, which the message carries as `txidReason`).
 */
export interface AgentMessageQueued {
  queued: boolean;
  reason: string | null;
}

type Reply<T> = Promise<{ status: number; body: (T & { code?: string; error?: string }) | null }>;

export function chainchatClient(host: HostClient, as: CallAs) {
  return {
    wallets: (query: Query): Reply<WalletPage> => callRoute(host, CHAINCHAT_ROUTES.wallets, { query }, as),
    walletMessages: (address: string, query: Query): Reply<WalletMessagePage> => callRoute(host, CHAINCHAT_ROUTES.walletMessages, { params: { address }, query }, as),
    grant: (address: string, body: { microUnits: number; reason?: string }): Reply<WalletGrant> => callRoute(host, CHAINCHAT_ROUTES.grant, { params: { address }, body }, as),
    sendAgentMessage: (message: AgentMessageOnchain): Reply<AgentMessageQueued> => callRoute(host, CHAINCHAT_ROUTES.sendAgentMessage, { body: message }, as),
  };
}
