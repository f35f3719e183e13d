// The marketplace extension's contract with its callers (a2a's agent directory reads the listings other
// servers federate here). It imports nothing of the marketplace's own code; the marketplace keys its
// handler with it.
import type { CallAs, HostClient } from '../../sdk/host-client.js';
import { callRoute } from '../../sdk/route-call.js';

export const MARKETPLACE_ROUTES = {
  federated: 'GET /api/marketplace/federated',
} as const;

/** The most listings one page of `federated` holds. */
export const FEDERATED_PAGE_MAX = 200;

/** What a federated server learns of a listing (the signed feed): no tenant, no seller agent. */
export interface FeedListing {
  id: string;
  kind: string;
  name: string;
  description: string;
  tags: string[];
  priceMicroUnits: number;
  rating: { average: number | null; count: number };
  useCount: number;
  updatedAt: string;
}

/** A public listing of another server, as its signed feed gave it at the last good sync. */
export interface FederatedListing extends FeedListing {
  /** The server's URL. */
  instance: string;
  syncedAt: string;
}

export class MarketplaceClient {
  constructor(private readonly host: HostClient) {}

  /** A page of the federated listings the caller's tenant keeps, by instance URL then remote id. */
  federated(query: { limit?: number; offset?: number; instance?: string }, as: CallAs): Promise<{ status: number; body: { listings: FederatedListing[] } | null }> {
    return callRoute(this.host, MARKETPLACE_ROUTES.federated, { query }, as);
  }
}
