// Streams an extension declared `tenantWide` reach every client of the event's tenant with at least the
// declared role, with nothing subscribed: a client written from the seed, which names only sessionId,
// still receives council_*, agent_balance, chainchat_message and work_task_update. Clients are indexed
// by tenant, so an event costs one map lookup and one encoding, never a scan of every client. A keyed
// `subscribe` on such a stream narrows the client to the keys it names (narrow), for less traffic.
import type { BusEvent } from '../bus.js';
import { ROLE_RANK } from '../auth/identity.js';
import type { StreamDecl } from '../host/manifest.js';
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

export class TenantFeeds {
  /** By stream key. */
  private readonly feeds = new Map<string, Feed>();
  private readonly joined = new Map<WsClient, Set<string>>();

  constructor(private readonly kernel: TenantFeedDeps, private readonly deliver: Deliver) {}

  /** Adds a new client to every tenant-wide stream its role may see; answers what it may subscribe to. */
  join(client: WsClient): StreamOffer[] {
    const offers: StreamOffer[] = [];
    const mine = new Set<string>();
    for (const stream of this.streams()) {
      const wide = mayReceive(client, stream);
      offers.push({ key: stream.key, types: stream.types ?? [], since: stream.replay !== undefined, tenantWide: wide });
      if (!wide) continue;
      const feed = this.feedOf(stream);
      let clients = feed.byTenant.get(client.identity.tenantId);
      if (!clients) feed.byTenant.set(client.identity.tenantId, (clients = new Set()));
      clients.add(client);
      mine.add(stream.key);
    }
    if (mine.size > 0) this.joined.set(client, mine);
    return offers;
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

  private *streams(): Iterable<StreamDecl> {
    for (const ext of this.kernel.registry.list()) {
      if (ext.state === 'unloaded') continue;
      yield* ext.manifest.server?.streams ?? [];
    }
  }
}

/** Members of the tenant with the role; an agent's MCP token sees only what it subscribes to by key. */
function mayReceive(client: WsClient, stream: StreamDecl): boolean {
  const { identity } = client;
  return stream.tenantWide !== undefined && identity.agent === undefined && ROLE_RANK[identity.role] >= ROLE_RANK[stream.tenantWide];
}
