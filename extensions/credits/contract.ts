// The credits extension's contract with its callers (sessions, councils, marketplace, billing,
// schedules): the routes they call, what those take and answer, and the event credits emits. It imports
// nothing of credits' own code; credits types its handlers with it.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';

export const CREDITS_ROUTES = {
  balance: 'GET /api/agents/:id/balance',
  usage: 'GET /api/credits/usage',
  reserve: 'POST /api/credits/reservations',
  reserveBatch: 'POST /api/credits/reservations/batch',
  claim: 'POST /api/credits/reservations/:id/claim',
  commit: 'POST /api/credits/reservations/:id/commit',
  release: 'POST /api/credits/reservations/:id/release',
  holdEscrow: 'POST /api/credits/escrow',
  escrow: 'GET /api/credits/escrow/:id',
  releaseEscrow: 'POST /api/credits/escrow/:id/release',
  refundEscrow: 'POST /api/credits/escrow/:id/refund',
} as const;

export const CREDITS_EVENTS = {
  /** Tenant-wide spending on a committed turn: {@link CreditsSpent}. */
  spent: 'credits.spent',
} as const;

export interface CreditsSpent {
  agentId: string;
  wallet: string;
  sessionId: string;
  microUnits: number;
  /** YYYY-MM-DD. */
  date: string;
}

/** A turn's hold: by agent (its wallet) or by wallet; microUnits default to the tenant's reservation per turn. */
export interface ReserveRequest {
  agentId?: string;
  wallet?: string;
  sessionId: string;
  microUnits?: number;
  provider?: string;
  model?: string;
  ttlSeconds?: number;
}

export type ReservationState = 'held' | 'committed' | 'released' | 'expired';

/** A hold as credits stores it. */
export interface Reservation {
  id: string;
  agentId: string;
  wallet: string;
  sessionId: string;
  microUnits: number;
  state: ReservationState;
  provider: string | null;
  model: string | null;
  actualMicroUnits: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  createdAt: string;
  expiresAt: string;
  settledAt: string | null;
}

export interface ReserveReply {
  reservationId: string;
  enforced: boolean;
  reservation: Reservation;
  balance?: number;
}

/** One item of a batch's answer, in order: a reservation, or why it was refused. */
export type BatchItem = ReserveReply | { error: string; code: string; status: number };

export interface ClaimRequest {
  sessionId: string;
  agentId: string;
}

/** A turn's real usage (credits prices it), or its cost in microUnits. */
export interface CommitRequest {
  microUnits?: number;
  inputTokens?: number;
  outputTokens?: number;
  provider?: string;
  model?: string;
}

export interface CommitReply {
  reservation: Reservation;
  /** MicroUnits the turn was charged. */
  charged: number;
  balance?: number;
}

export interface UsageReply {
  tenantId: string;
  unit: 'microUnits';
  spentMicroUnits: number;
  days: Array<{ date: string; microUnits: number }>;
}

export interface BalanceReply {
  agentId: string;
  wallet: string;
  balance: number;
  reserved: number;
  unit: 'microUnits';
}

export interface EscrowHoldRequest {
  agentId: string;
  microUnits: number;
  payee: { tenantId: string; agentId: string };
  reference?: string;
  reason?: string;
}

type Reply<T> = Promise<{ status: number; body: T | null }>;

/** The credits routes as calls (each answers the raw status and body: callers decide what a refusal means). */
export class CreditsClient {
  constructor(private readonly host: HostClient) {}

  balance(agentId: string, as: CallAs): Reply<BalanceReply> {
    return callRoute(this.host, CREDITS_ROUTES.balance, { params: { id: agentId } }, as);
  }

  /** What the tenant spent on turns in [from, to) (ISO 8601). */
  usage(from: string, to: string, as: CallAs): Reply<UsageReply> {
    return callRoute(this.host, CREDITS_ROUTES.usage, { query: { from, to } }, as);
  }

  reserve(request: ReserveRequest, as: CallAs): Reply<ReserveReply> {
    return callRoute(this.host, CREDITS_ROUTES.reserve, { body: request }, as);
  }

  reserveBatch(reservations: ReserveRequest[], as: CallAs): Reply<{ reservations: BatchItem[] }> {
    return callRoute(this.host, CREDITS_ROUTES.reserveBatch, { body: { reservations } }, as);
  }

  claim(reservationId: string, claim: ClaimRequest, as: CallAs): Reply<unknown> {
    return callRoute(this.host, CREDITS_ROUTES.claim, { params: { id: reservationId }, body: claim }, as);
  }

  commit(reservationId: string, usage: CommitRequest, as: CallAs): Reply<CommitReply> {
    return callRoute(this.host, CREDITS_ROUTES.commit, { params: { id: reservationId }, body: usage }, as);
  }

  release(reservationId: string, as: CallAs): Reply<unknown> {
    return callRoute(this.host, CREDITS_ROUTES.release, { params: { id: reservationId }, body: {} }, as);
  }

  holdEscrow(hold: EscrowHoldRequest, as: CallAs): Reply<{ escrow: { id: string }; balance: number }> {
    return callRoute(this.host, CREDITS_ROUTES.holdEscrow, { body: hold }, as);
  }

  settleEscrow(escrowId: string, outcome: 'release' | 'refund', as: CallAs): Reply<unknown> {
    return callRoute(this.host, outcome === 'release' ? CREDITS_ROUTES.releaseEscrow : CREDITS_ROUTES.refundEscrow, { params: { id: escrowId }, body: null }, as);
  }
}
