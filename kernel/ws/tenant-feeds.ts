// Streams an extension declared `tenantWide` reach every client of the event's tenant with at least the
// declared role, with nothing subscribed: a client written from the seed, which names only sessionId,
// still receives council_*, agent_balance, chainchat_message and work_task_update. Clients are indexed
// by tenant, so an event costs one map lookup and one encoding, never a scan of every client. A keyed
// `subscribe` on such a stream narrows the client to the keys it names (narrow), for less traffic.
import type { BusEvent } from '../bus.js';
import { ROLE_RANK } from '../auth/identity.js';
import type { Manifest, StreamDecl } from '../host/manifest.js';
import type { Kernel } from '../kernel.js';
import type { WsClient } from './hub.js';

/** What this module uses of the kernel. */
export type TenantFeedDeps = Pick<Kernel, 'bus' | 'registry'>;

type Deliver = (client: WsClient, encoded: Buffer) => void;

interface Feed {
  byTenant: Map<string, Set<WsClient>>;
  unsubscribe: () => void;
}

/** What `welcome` says of a stream: its key, its message types, whether it replays, whether this client gets it unasked. */
export interface StreamOffer {
  key: string;
  types: string[];
  since: boolean;
  tenantWide: boolean;
}

/** What a kind of client is offered: the `streams` of its welcome as JSON text, and the streams it receives unasked. */
interface Offer {
  json: string;
  wide: StreamDecl[];
}

export class TenantFeeds {
  /** By stream key. */
  private readonly feeds = new Map<string, Feed>();
  private readonly joined = new Map<WsClient, Set<string>>();
  /** By kind of client (role, member or agent), for the declared streams of offersFrom. */
  private readonly offers = new Map<string, Offer>();
  private offersFrom: Array<Manifest | undefined> = [];

  constructor(private readonly kernel: TenantFeedDeps, private readonly deliver: Deliver) {}

  /**
   * Adds a new client to every tenant-wide stream its role may see; answers, as JSON text, what it may
   * subscribe to. Both depend only on the streams declared and on the client's role and whether it is an
   * agent, so they are worked out once per kind of client and kept while the declared streams stay the same.
   */
  join(client: WsClient): string {
    const offer = this.offerFor(client);
    const mine = new Set<string>();
    for (const stream of offer.wide) {
      const feed = this.feedOf(stream);
      let clients = feed.byTenant.get(client.identity.tenantId);
      if (!clients) feed.byTenant.set(client.identity.tenantId, (clients = new Set()));
      clients.add(client);
      mine.add(stream.key);
    }
    if (mine.size > 0) this.joined.set(client, mine);
    return offer.json;
  }

  private offerFor(client: WsClient): Offer {
    const declared = this.declared();
    if (!sameStreams(declared, this.offersFrom)) {
      this.offers.clear();
      this.offersFrom = declared;
    }
    const kind = `${client.identity.role} ${client.identity.agent === undefined ? 'member' : 'agent'}`;
    let offer = this.offers.get(kind);
    if (!offer) {
      const streams = declared.flatMap((manifest) => manifest?.server?.streams ?? []);
      const offers: StreamOffer[] = streams.map((stream) => ({ key: stream.key, types: stream.types ?? [], since: stream.replay !== undefined, tenantWide: mayReceive(client, stream) }));
      offer = { json: JSON.stringify(offers), wide: streams.filter((stream) => mayReceive(client, stream)) };
      this.offers.set(kind, offer);
    }
    return offer;
  }

  /** The manifest of every extension that is not unloaded, in the registry's order (undefined for one unloaded). */
  private declared(): Array<Manifest | undefined> {
    return this.kernel.registry.list().map((ext) => (ext.state === 'unloaded' ? undefined : ext.manifest));
  }

  /** The client subscribed to keys of this stream: from now on it receives only those. */
  narrow(client: WsClient, key: string): void {
    if (!this.joined.get(client)?.delete(key)) return;
    this.leave(client, key);
  }

  dropClient(client: WsClient): void {
    for (const key of this.joined.get(client) ?? []) this.leave(client, key);
    this.joined.delete(client);
  }

  private leave(client: WsClient, key: string): void {
    const feed = this.feeds.get(key);
    const clients = feed?.byTenant.get(client.identity.tenantId);
    if (!feed || !clients) return;
    clients.delete(client);
    if (clients.size === 0) feed.byTenant.delete(client.identity.tenantId);
    if (feed.byTenant.size === 0) {
      feed.unsubscribe();
      this.feeds.delete(key);
    }
  }

  private feedOf(stream: StreamDecl): Feed {
    let feed = this.feeds.get(stream.key);
    if (!feed) {
      const created: Feed = { byTenant: new Map(), unsubscribe: () => undefined };
      // Every key of the stream: "council-launch.{launchId}" is watched as "council-launch.*".
      const pattern = stream.topic.replaceAll(`{${stream.key}}`, '*');
      created.unsubscribe = this.kernel.bus.subscribe(pattern, (event) => this.fanOut(created, event));
      this.feeds.set(stream.key, (feed = created));
    }
    return feed;
  }

  /** Only events that name their tenant, only to that tenant's clients; one encoding for all of them. */
  private fanOut(feed: Feed, event: BusEvent): void {
    if (event.tenantId === null) return;
    const clients = feed.byTenant.get(event.tenantId);
    if (!clients) return;
    const payload = event.payload as { type?: unknown } | null;
    if (!payload || typeof payload !== 'object' || typeof payload.type !== 'string') return;
    const encoded = Buffer.from(JSON.stringify(payload));
    for (const client of clients) this.deliver(client, encoded);
  }
}

/** Members of the tenant with the role; an agent's MCP token sees only what it subscribes to by key. */
function mayReceive(client: WsClient, stream: StreamDecl): boolean {
  const { identity } = client;
  return stream.tenantWide !== undefined && identity.agent === undefined && ROLE_RANK[identity.role] >= ROLE_RANK[stream.tenantWide];
}

function sameStreams(a: Array<Manifest | undefined>, b: Array<Manifest | undefined>): boolean {
  return a.length === b.length && a.every((manifest, i) => manifest === b[i]);
}
