// The WebSocket front on /ws: Host and Origin checks, then auth at upgrade (bearer header or a
// one-time ticket), `welcome`, ping/pong and heartbeats, subscriptions authorised by the extension
// that owns the stream, client messages (within the JSON limits) routed to the extension that
// declared their type, bus events fanned out to subscribers of the same tenant (and, for streams
// declared tenant-wide, to every client of that tenant: tenant-feeds.ts).
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { retryAfterOf, RoostError, toRoostError } from '../../protocol/errors.js';
import { checkJsonLimits, EDGE_JSON_LIMITS } from '../../protocol/json-limits.js';
import type { Identity } from '../auth/identity.js';
import { browserPolicy, browserRefusal, recordRefusal, type BrowserPolicy } from '../http/browser-guard.js';
import type { Kernel } from '../kernel.js';
import { StreamSubscriptions } from './subscriptions.js';
import { TenantFeeds } from './tenant-feeds.js';
import type { TicketStore } from './tickets.js';

/** What this module uses of the kernel. */
export type WsHubDeps = Pick<Kernel, 'audit' | 'auth' | 'bus' | 'config' | 'dispatcher' | 'log' | 'metrics' | 'rateLimiter' | 'readOnly' | 'registry' | 'version'>;

export const HEARTBEAT_MS = 30_000;
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** How long a client closed for not reading has to read up to the close frame before it is cut off. */
const SLOW_CLOSE_GRACE_MS = 10_000;

export interface WsClient {
  id: string;
  socket: WebSocket;
  identity: Identity;
  alive: boolean;
}

export class WsHub {
  /** Clients are kept in `clients` below, so the ws library keeps no set of its own. */
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, clientTracking: false });
  private readonly clients = new Map<string, WsClient>();
  private readonly subscriptions: StreamSubscriptions;
  private readonly feeds: TenantFeeds;
  private readonly browsers: BrowserPolicy;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly kernel: WsHubDeps, private readonly tickets: TicketStore) {
    this.feeds = new TenantFeeds(kernel, (client, encoded) => this.deliver(client, encoded));
    this.subscriptions = new StreamSubscriptions(kernel, (client, encoded) => this.deliver(client, encoded), this.feeds);
    this.browsers = browserPolicy(kernel.config);
  }

  attach(server: Server): void {
    server.on('upgrade', (req, socket, head) => {
      this.upgrade(req, socket, head).catch(() => socket.destroy());
    });
    // One heartbeat for every server attached (the main port and any further one an extension asks for).
    this.heartbeat ??= setInterval(() => this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** A short-lived, single-use ticket, so browsers never put the API key in a URL. */
  issueTicket(identity: Identity): Promise<{ ticket: string; expiresInSeconds: number }> {
    return this.tickets.issue(identity);
  }

  send(clientId: string, message: object): boolean {
    const client = this.clients.get(clientId);
    if (!client) return false;
    this.write(client, JSON.stringify(message));
    return true;
  }

  /** Whether a client listens to a stream the named extension declared. */
  hasStreamSubscribers(owner: string): boolean {
    return this.subscriptions.hasSubscribers(owner);
  }

  get size(): number {
    return this.clients.size;
  }

  close(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const client of this.clients.values()) client.socket.close(1001, 'server shutting down');
    this.wss.close();
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // Parsed only when it carries a query (a ticket): most upgrades ask for /ws itself.
    const url = req.url === '/ws' ? undefined : new URL(req.url ?? '/', 'http://localhost');
    if (url && url.pathname !== '/ws') return refuse(socket, new RoostError('ROUTE_NOT_FOUND', `nothing serves WebSocket upgrades on ${url.pathname}`));
    // A web page may open a WebSocket to any address: its Host and Origin are checked before anything else.
    const foreign = browserRefusal(this.browsers, req);
    if (foreign) {
      try {
        await recordRefusal(this.kernel, req, 'GET /ws', foreign);
      } catch (err) {
        return refuse(socket, toRoostError(err));
      }
      return refuse(socket, foreign);
    }
    let identity: Identity;
    try {
      const ticket = url?.searchParams.get('ticket');
      identity = ticket ? await this.tickets.take(ticket) : await this.kernel.auth.identify(req);
    } catch (err) {
      const error = toRoostError(err);
      this.kernel.audit.append({ tenantId: null, actor: req.socket.remoteAddress ?? 'unknown', action: 'auth.failure', resource: 'GET /ws', detail: { code: error.code } });
      return refuse(socket, error);
    }
    // The 101 and the welcome leave in one write: handleUpgrade answers and calls back synchronously.
    socket.cork();
    try {
      this.wss.handleUpgrade(req, socket, head, (ws) => this.connect(ws, identity));
    } finally {
      socket.uncork();
    }
  }

  private connect(socket: WebSocket, identity: Identity): void {
    const client: WsClient = { id: randomUUID(), socket, identity, alive: true };
    this.clients.set(client.id, client);
    socket.on('pong', () => (client.alive = true));
    socket.on('message', (data, isBinary) => {
      client.alive = true;
      this.receive(client, isBinary ? null : data.toString()).catch((err) => this.fail(client, err));
    });
    socket.on('close', () => {
      this.clients.delete(client.id);
      this.subscriptions.dropClient(client);
      this.feeds.dropClient(client);
    });
    socket.on('error', () => socket.terminate());
    // `streams`: what may be subscribed to (key, message types, `since`), and which arrive unasked (tenantWide).
    // (Kept as JSON text per kind of client: tenant-feeds.ts.)
    const streams = this.feeds.join(client);
    const welcome = JSON.stringify({ type: 'welcome', clientId: client.id, tenantId: identity.tenantId, role: identity.role, serverVersion: this.kernel.version, heartbeatSeconds: HEARTBEAT_MS / 1000 });
    this.write(client, `${welcome.slice(0, -1)},"streams":${streams}}`);
  }

  private async receive(client: WsClient, text: string | null): Promise<void> {
    // Before JSON.parse, so a frame nested too deep is refused before anything walks it.
    if (text !== null) checkJsonLimits(text, EDGE_JSON_LIMITS);
    let message: unknown;
    try {
      message = text === null ? undefined : JSON.parse(text);
    } catch {
      message = undefined;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) throw new RoostError('VALIDATION_ERROR', 'messages must be JSON objects');
    const m = message as Record<string, unknown>;
    if (typeof m.type !== 'string' || m.type === '') throw new RoostError('VALIDATION_ERROR', 'a message needs a string "type"');
    switch (m.type) {
      case 'ping':
        return void this.write(client, JSON.stringify({ type: 'pong', ts: new Date().toISOString() }));
      case 'subscribe':
        return this.subscriptions.subscribe(client, m);
      case 'unsubscribe':
        return this.reply(client, this.subscriptions.unsubscribe(client, m));
      default:
        return this.route(client, m);
    }
  }

  /** A client message type an extension declared goes to that extension, with the client's identity. */
  private async route(client: WsClient, message: Record<string, unknown>): Promise<void> {
    const owner = this.kernel.registry.list().find((e) => e.state !== 'unloaded' && e.manifest.server?.ws.includes(String(message.type)));
    if (!owner) throw new RoostError('VALIDATION_ERROR', `unknown message type "${String(message.type)}"`);
    if (client.identity.role === 'viewer') throw new RoostError('FORBIDDEN', 'viewers may only subscribe and listen');
    const { tenantId, role, actor } = client.identity;
    // Like a viewer, a tenant that reads only may only listen.
    await this.kernel.readOnly.requireWritable(tenantId);
    await this.kernel.registry.notify(owner.manifest.name, { type: 'ws', clientId: client.id, message, auth: { tenantId, role, actor } });
  }

  private deliver(client: WsClient, encoded: Buffer): void {
    this.write(client, encoded);
  }

  private reply(client: WsClient, message: object): void {
    this.write(client, JSON.stringify(message));
  }

  private fail(client: WsClient, err: unknown): void {
    const error = toRoostError(err);
    if (error.code === 'INTERNAL') this.kernel.log('error', `ws: ${err instanceof Error ? err.stack : String(err)}`);
    this.write(client, JSON.stringify({ type: 'error', message: error.message, code: error.code }));
  }

  /**
   * Sends unless the client stopped reading: with more than ROOST_WS_MAX_BUFFERED_BYTES unread it is closed with
   * 1013 (it may reconnect and subscribe `since` what it last read), nothing more is queued for it, and
   * it is cut off if it does not read up to the close frame soon.
   */
  private write(client: WsClient, data: string | Buffer): void {
    const { socket } = client;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > this.kernel.config.wsMaxBufferedBytes) {
      this.kernel.metrics.slowWsClientClosed();
      socket.close(1013, 'too slow: the client is not reading what it is sent');
      setTimeout(() => socket.terminate(), SLOW_CLOSE_GRACE_MS).unref();
      return;
    }
    socket.send(data, { binary: false });
  }

  private beat(): void {
    this.tickets.sweep().catch((err: Error) => this.kernel.log('warn', `ws: sweeping tickets failed: ${err.message}`));
    for (const client of this.clients.values()) {
      if (!client.alive) {
        client.socket.terminate();
        continue;
      }
      client.alive = false;
      client.socket.ping();
    }
  }
}

/** An upgrade refused with the same JSON `{error, code}` body as any REST error. */
function refuse(socket: Duplex, error: RoostError): void {
  const body = JSON.stringify(error.toBody());
  const auth = error.status === 401 ? 'WWW-Authenticate: Bearer realm="roost"\r\n' : '';
  const retryAfter = retryAfterOf(error);
  const retry = retryAfter === undefined ? '' : `Retry-After: ${retryAfter}\r\n`;
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n${auth}${retry}Content-Type: application/json\r\n` +
      `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
