// svc_agent_directory: the agents of every registered remote, each with its A2A card (a remote's list is
// cached for a minute, per tenant and remote; a change to the remote forgets it), and the agents other
// servers offer in the marketplace's federation, when the marketplace is loaded.
import type { ExtensionContext } from '../../sdk/extension.js';
import { routePath } from '../../sdk/route-call.js';
import { checkCard, type AgentCard } from './card.js';
import { connect, getJson } from './remote-client.js';
import { RemoteStore, type Remote } from './remotes.js';
import { AGENTS_ROUTES } from '../agents/contract.js';
import { FEDERATED_PAGE_MAX, MarketplaceClient, type FederatedListing } from '../marketplace/contract.js';

const TTL_MS = 60_000;
const MAX_AGENTS_PER_REMOTE = 50;
/** Federated listings read for the directory at most (five pages). */
const MAX_FEDERATED_LISTINGS = 5 * FEDERATED_PAGE_MAX;

interface Listing {
  remote: { id: string; name: string; url: string };
  agents?: Array<{ id: string; name: string; description: string; card: AgentCard }>;
  error?: string;
  fetchedAt: string;
}

const cache = new Map<string, { at: number; listing: Listing }>();

export function forgetDirectory(tenantId: string, remoteId: string): void {
  cache.delete(`${tenantId}/${remoteId}`);
}

/** The federation's part: agents offered by other servers, or why they cannot be listed now. */
interface Federated {
  agents: Array<Pick<FederatedListing, 'instance' | 'name' | 'description' | 'tags' | 'priceMicroUnits' | 'rating' | 'syncedAt'> & { listingId: string }>;
  error?: string;
}

export async function agentDirectory(ctx: ExtensionContext, tenantId: string, refresh: boolean): Promise<{ remotes: Listing[]; federated: Federated }> {
  const remotes = await new RemoteStore(ctx.db).list(tenantId);
  const [listings, federated] = await Promise.all([Promise.all(remotes.map((remote) => listingOf(ctx, tenantId, remote, refresh))), federatedAgents(ctx, tenantId)]);
  return { remotes: listings, federated };
}

/** Read from the marketplace's own copy of the feeds (its sync keeps them fresh), so never cached here. */
async function federatedAgents(ctx: ExtensionContext, tenantId: string): Promise<Federated> {
  const marketplace = new MarketplaceClient(ctx.host);
  const agents: Federated['agents'] = [];
  for (let offset = 0; offset < MAX_FEDERATED_LISTINGS; offset += FEDERATED_PAGE_MAX) {
    const page = await marketplace.federated({ limit: FEDERATED_PAGE_MAX, offset }, { tenantId });
    if (page.status !== 200 || !page.body) {
      const error = page.status === 404 ? 'the marketplace extension is not loaded' : `the marketplace answered ${page.status}`;
      return { agents, error };
    }
    for (const l of page.body.listings) {
      if (l.kind === 'agent') agents.push({ instance: l.instance, listingId: l.id, name: l.name, description: l.description, tags: l.tags, priceMicroUnits: l.priceMicroUnits, rating: l.rating, syncedAt: l.syncedAt });
    }
    if (page.body.listings.length < FEDERATED_PAGE_MAX) break;
  }
  return { agents };
}

async function listingOf(ctx: ExtensionContext, tenantId: string, remote: Remote, refresh: boolean): Promise<Listing> {
  const key = `${tenantId}/${remote.id}`;
  const cached = cache.get(key);
  if (!refresh && cached && Date.now() - cached.at < TTL_MS) return cached.listing;
  const listing = await fetchListing(ctx, tenantId, remote).catch((err: unknown): Listing => ({ remote: summary(remote), error: err instanceof Error ? err.message : String(err), fetchedAt: new Date().toISOString() }));
  if (!listing.error) cache.set(key, { at: Date.now(), listing });
  return listing;
}

async function fetchListing(ctx: ExtensionContext, tenantId: string, remote: Remote): Promise<Listing> {
  const connection = await connect(ctx, tenantId, remote);
  const list = await getJson(connection, new URL(`${connection.base}${routePath(AGENTS_ROUTES.list, {}, { limit: MAX_AGENTS_PER_REMOTE }).path}`));
  const agents = (list.body as { agents?: Array<{ id: unknown }> } | null)?.agents;
  if (list.status === 401 && !remote.hasApiKey) throw new Error(`remote ${remote.name} answered 401 for its agent list: it needs an API key (PUT /api/a2a/remotes/${remote.id})`);
  if (list.status !== 200 || !Array.isArray(agents)) throw new Error(`remote ${remote.name} answered ${list.status} for its agent list`);
  const cards = await Promise.all(
    agents.filter((a) => typeof a.id === 'string').map(async (a) => {
      const url = new URL(`${connection.base}${routePath(AGENTS_ROUTES.card, { id: a.id as string }).path}`);
      const reply = await getJson(connection, url);
      if (reply.status !== 200) throw new Error(`remote ${remote.name} answered ${reply.status} for ${url.pathname}`);
      const card = checkCard(reply.body, url.href);
      return { id: a.id as string, name: card.name, description: card.description, card };
    }),
  );
  return { remote: summary(remote), agents: cards, fetchedAt: new Date().toISOString() };
}

const summary = (remote: Remote) => ({ id: remote.id, name: remote.name, url: remote.url });
