// Which client listens to which stream. A stream is declared by an extension ([[server.streams]]):
// the key a `subscribe` carries, the bus topic it maps to, and the GET route whose 200 answer for the
// client proves the client may see it — so the kernel authorises streams it knows nothing about.
// A stream that declares a replay route can be subscribed `since` a sequence number: the client gets
// what it missed, then the live stream, with nothing lost or repeated in between.
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { decodeAttachment } from '../../protocol/framing.js';
import type { BusEvent } from '../bus.js';
import type { StreamDecl } from '../host/manifest.js';
import type { Kernel } from '../kernel.js';
import type { WsClient } from './hub.js';
import type { TenantFeeds } from './tenant-feeds.js';

/** What this module uses of the kernel. */
export type SubscriptionDeps = Pick<Kernel, 'bus' | 'dispatcher' | 'registry'>;

/** Sends an already encoded text frame payload to one client. */
type Deliver = (client: WsClient, encoded: Buffer) => void;

interface Topic {
  clients: Set<WsClient>;
  /** Live messages held for clients whose replay is still running, with their sequence numbers. */
  held: Map<WsClient, Array<{ seq: unknown; encoded: Buffer }>>;
  unsubscribe: () => void;
  /** The extension that declared the stream. */
  owner: string;
}

const MAX_SUBSCRIPTIONS_PER_CLIENT = 1_000;
const REPLAY_PAGE = 500;
const MAX_REPLAYED = 10_000;

export class StreamSubscriptions {
  private readonly topics = new Map<string, Topic>();
  private readonly byClient = new Map<WsClient, Set<string>>();

  constructor(private readonly kernel: SubscriptionDeps, private readonly deliver: Deliver, private readonly feeds: TenantFeeds) {}

  /** Answers `subscribed` (then, with `since`, the replay) to the client itself. */
  async subscribe(client: WsClient, message: Record<string, unknown>): Promise<void> {
    const { stream, value, owner } = this.streamFor(message);
    const since = sinceOf(message, stream);
    const topic = fill(stream.topic, stream.key, value);
    const mine = this.byClient.get(client) ?? new Set<string>();
    if (mine.size >= MAX_SUBSCRIPTIONS_PER_CLIENT) throw new RoostError('CONFLICT', `at most ${MAX_SUBSCRIPTIONS_PER_CLIENT} subscriptions per connection`);
    await this.authorise(client, stream, value);
    // A keyed subscription narrows a tenant-wide stream to the keys the client names.
    this.feeds.narrow(client, stream.key);
    mine.add(topic);
    this.byClient.set(client, mine);
    let entry = this.topics.get(topic);
    if (!entry) {
      const created: Topic = { clients: new Set(), held: new Map(), owner, unsubscribe: () => undefined };
      created.unsubscribe = this.kernel.bus.subscribe(topic, (event) => this.fanOut(created, event));
      this.topics.set(topic, (entry = created));
    }
    // Live messages that arrive while the replay runs are held, then sent unless the replay had them.
    if (since !== undefined) entry.held.set(client, []);
    entry.clients.add(client);
    this.send(client, { type: 'subscribed', [stream.key]: value, ...(since !== undefined ? { since } : {}) });
    if (since === undefined) return;
    let last = since;
    try {
      last = await this.replay(client, stream, value, since);
    } catch (err) {
      const error = toRoostError(err);
      this.send(client, { type: 'error', code: error.code, message: `replay of ${stream.key} ${value} stopped: ${error.message}` });
    } finally {
      for (const held of entry.held.get(client) ?? []) {
        if (typeof held.seq !== 'number' || held.seq > last) this.deliver(client, held.encoded);
      }
      entry.held.delete(client);
    }
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
  private fanOut(topic: Topic, event: BusEvent): void {
    const payload = event.payload as { type?: unknown; seq?: unknown } | null;
    const message = payload && typeof payload === 'object' && typeof payload.type === 'string' ? payload : { type: 'event', topic: event.topic, payload: event.payload };
    const encoded = Buffer.from(JSON.stringify(message));
    for (const client of topic.clients) {
      if (event.tenantId !== null && event.tenantId !== client.identity.tenantId) continue;
      const held = topic.held.get(client);
      if (held) held.push({ seq: (message as { seq?: unknown }).seq, encoded });
      else this.deliver(client, encoded);
    }
  }

  /** Sends what the stream's replay route has after `since`, page by page; returns the last seq sent. */
  private async replay(client: WsClient, stream: StreamDecl, value: string, since: number): Promise<number> {
    const [method, template] = stream.replay!.split(' ') as [string, string];
    let last = since;
    for (let sent = 0; ; ) {
      if (sent >= MAX_REPLAYED) throw new RoostError('CONFLICT', `more than ${MAX_REPLAYED} messages to replay: read up to the present over REST, then subscribe since the last`);
      const path = `${fill(template, stream.key, encodeURIComponent(value))}?after=${last}&limit=${REPLAY_PAGE}`;
      const reply = await this.kernel.dispatcher.call({ method, path, body: null, auth: client.identity });
      const body = reply.attachment ? decodeAttachment(reply.attachment, 'json') : reply.body;
      const messages = (body as { messages?: unknown } | null)?.messages;
      if (reply.status !== 200 || !Array.isArray(messages)) throw new RoostError('EXTENSION_UNAVAILABLE', `the replay route answered ${reply.status}`);
      for (const m of messages as Array<{ seq?: unknown }>) {
        if (typeof m.seq !== 'number' || m.seq <= last) continue;
        this.send(client, m);
        last = m.seq;
      }
      sent += messages.length;
      if (messages.length < REPLAY_PAGE) break;
    }
    return last;
  }

  private send(client: WsClient, message: object): void {
    this.deliver(client, Buffer.from(JSON.stringify(message)));
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

/** `since` on a subscribe: a sequence number, for streams that can replay. */
function sinceOf(message: Record<string, unknown>, stream: StreamDecl): number | undefined {
  const since = message.since;
  if (since === undefined) return undefined;
  if (!Number.isSafeInteger(since) || (since as number) < 0) throw new RoostError('VALIDATION_ERROR', 'since must be a non-negative integer (an event sequence number)');
  if (!stream.replay) throw new RoostError('VALIDATION_ERROR', `the ${stream.key} stream cannot replay: subscribe without since`);
  return since as number;
}

function fill(template: string, key: string, value: string): string {
  return template.replaceAll(`{${key}}`, value);
}
