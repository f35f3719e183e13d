// Which client listens to which stream. A stream is declared by an extension ([[server.streams]]):
// the key a `subscribe` carries, the bus topic it maps to, and the GET route whose 200 answer for the
// client proves the client may see it — so the kernel authorises streams it knows nothing about.
import { RoostError } from '../../protocol/errors.js';
import type { BusEvent } from '../bus.js';
import type { StreamDecl } from '../host/manifest.js';
import type { Kernel } from '../kernel.js';
import type { WsClient } from './hub.js';

/** Sends an already encoded text frame payload to one client. */
type Deliver = (client: WsClient, encoded: Buffer) => void;

interface Topic {
  clients: Set<WsClient>;
  unsubscribe: () => void;
  /** The extension that declared the stream. */
  owner: string;
}

const MAX_SUBSCRIPTIONS_PER_CLIENT = 1_000;

export class StreamSubscriptions {
  private readonly topics = new Map<string, Topic>();
  private readonly byClient = new Map<WsClient, Set<string>>();

  constructor(private readonly kernel: Kernel, private readonly deliver: Deliver) {}

  async subscribe(client: WsClient, message: Record<string, unknown>): Promise<object> {
    const { stream, value, owner } = this.streamFor(message);
    const topic = fill(stream.topic, stream.key, value);
    const mine = this.byClient.get(client) ?? new Set<string>();
    if (mine.size >= MAX_SUBSCRIPTIONS_PER_CLIENT) throw new RoostError('CONFLICT', `at most ${MAX_SUBSCRIPTIONS_PER_CLIENT} subscriptions per connection`);
    await this.authorise(client, stream, value);
    mine.add(topic);
    this.byClient.set(client, mine);
    let entry = this.topics.get(topic);
    if (!entry) {
      const clients = new Set<WsClient>();
      entry = { clients, owner, unsubscribe: this.kernel.bus.subscribe(topic, (event) => this.fanOut(clients, event)) };
      this.topics.set(topic, entry);
    }
    entry.clients.add(client);
    return { type: 'subscribed', [stream.key]: value };
  }

  unsubscribe(client: WsClient, message: Record<string, unknown>): object {
    const { stream, value } = this.streamFor(message);
    this.leave(client, fill(stream.topic, stream.key, value));
    return { type: 'unsubscribed', [stream.key]: value };
  }

  /** Whether a client listens to a stream this extension declared (it is then never stopped as idle). */
  hasSubscribers(owner: string): boolean {
    for (const entry of this.topics.values()) if (entry.owner === owner) return true;
    return false;
  }

  dropClient(client: WsClient): void {
    for (const topic of this.byClient.get(client) ?? []) this.leave(client, topic);
    this.byClient.delete(client);
  }

  private leave(client: WsClient, topic: string): void {
    this.byClient.get(client)?.delete(topic);
    const entry = this.topics.get(topic);
    if (!entry) return;
    entry.clients.delete(client);
    if (entry.clients.size === 0) {
      entry.unsubscribe();
      this.topics.delete(topic);
    }
  }

  /** One serialisation and one UTF-8 encoding per event, whatever the number of subscribers; other tenants never see it. */
  private fanOut(clients: Set<WsClient>, event: BusEvent): void {
    const payload = event.payload as { type?: unknown } | null;
    const message = payload && typeof payload === 'object' && typeof payload.type === 'string' ? payload : { type: 'event', topic: event.topic, payload: event.payload };
    const encoded = Buffer.from(JSON.stringify(message));
    for (const client of clients) {
      if (event.tenantId !== null && event.tenantId !== client.identity.tenantId) continue;
      this.deliver(client, encoded);
    }
  }

  private streamFor(message: Record<string, unknown>): { stream: StreamDecl; value: string; owner: string } {
    for (const ext of this.kernel.registry.list()) {
      if (ext.state === 'unloaded') continue;
      for (const stream of ext.manifest.server?.streams ?? []) {
        const value = message[stream.key];
        if (value === undefined) continue;
        if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(value)) throw new RoostError('VALIDATION_ERROR', `${stream.key} must be an id`);
        return { stream, value, owner: ext.manifest.name };
      }
    }
    throw new RoostError('VALIDATION_ERROR', `${String(message.type)} needs the id of a stream (for example sessionId)`);
  }

  private async authorise(client: WsClient, stream: StreamDecl, value: string): Promise<void> {
    const [method, template] = stream.authorize.split(' ') as [string, string];
    const path = fill(template, stream.key, encodeURIComponent(value));
    const { status } = await this.kernel.dispatcher.call({ method, path, body: null, auth: client.identity });
    if (status === 200) return;
    if (status === 404 || status === 403) throw new RoostError('NOT_FOUND', `${stream.key} ${value} not found`);
    throw new RoostError('EXTENSION_UNAVAILABLE', `cannot check access to ${stream.key} ${value} right now (status ${status})`);
  }
}

function fill(template: string, key: string, value: string): string {
  return template.replaceAll(`{${key}}`, value);
}
