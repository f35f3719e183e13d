// The browser's only way out. Each call's browser context talks to the network through one of these
// proxies (HTTP requests forwarded, HTTPS and WebSockets tunnelled with CONNECT), and Chromium resolves
// no name itself (--host-resolver-rules, browser.ts): every connection is opened here, by node:net with
// the outbound guard's lookup, so the address checked is the address connected to — a name cannot
// resolve to a public address when checked and to loopback when used (DNS rebinding).
import { createServer, request, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { RoostError } from '../../protocol/errors.js';
import { blockedAddress, checkedLookup, refusedAddress, type Reach } from '../../sdk/outbound.js';

/** Headers about the client's connection to the proxy, not the request (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'upgrade']);

export interface ProxyFailure {
  host: string;
  /** Refused by the guard (FORBIDDEN), or the connection failed (the reason). */
  error: RoostError;
}

export class GuardedProxy {
  /** Connections refused or failed, in order: why a navigation failed. */
  readonly failures: ProxyFailure[] = [];

  private constructor(
    private readonly server: Server,
    private readonly reachOf: (port: number) => Reach,
  ) {}

  /** A proxy on a loopback port of its own; `reachOf` says where a connection to a port may go. */
  static async start(reachOf: (port: number) => Reach): Promise<GuardedProxy> {
    const server = createServer();
    const proxy = new GuardedProxy(server, reachOf);
    server.on('request', (req, res) => proxy.forward(req, res));
    server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => proxy.tunnel(req, socket, head));
    // A plain-http WebSocket is tunnelled with CONNECT by Chromium; an Upgrade sent here is refused.
    server.on('upgrade', (_req, socket: Socket) => socket.destroy());
    server.on('clientError', (_err, socket: Socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The failure that explains a failed load of `host`: a refusal first (a redirect may have led there), else its own. */
  failureFor(host: string): RoostError | undefined {
    const refusal = this.failures.findLast((f) => f.error.code === 'FORBIDDEN');
    return refusal?.error ?? this.failures.findLast((f) => f.host === host)?.error;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Opens a socket to host:port within the reach, or says why not. */
  private open(host: string, port: number, onOpen: (socket: Socket) => void, onError: (error: RoostError) => void): void {
    const bare = host.replace(/^\[|\]$/g, '');
    const reach = this.reachOf(port);
    const fail = (error: RoostError) => {
      this.failures.push({ host: bare, error });
      onError(error);
    };
    // An IP literal is never looked up: check it here; a name is checked as it resolves.
    if (blockedAddress(bare, reach)) return fail(refusedAddress(bare, reach));
    const socket = connect({ host: bare, port, lookup: checkedLookup(reach) });
    socket.once('connect', () => onOpen(socket));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      fail(err instanceof RoostError ? err : new RoostError('UPSTREAM_ERROR', `${bare}:${port} could not be reached: ${err.code ?? err.message}`));
    });
  }

  private tunnel(req: IncomingMessage, client: Socket, head: Buffer): void {
    client.on('error', () => client.destroy());
    const target = parseTarget(`http://${req.url ?? ''}`);
    if (!target?.port) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    this.open(target.hostname, Number(target.port), (upstream) => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).on('error', () => upstream.destroy());
      client.pipe(upstream);
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    }, (error) => client.end(`HTTP/1.1 ${error.code === 'FORBIDDEN' ? '403 Forbidden' : '502 Bad Gateway'}\r\n\r\n`));
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const target = parseTarget(req.url ?? '');
    if (!target || target.protocol !== 'http:') return void res.writeHead(400).end();
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    this.open(target.hostname, Number(target.port) || 80, (socket) => {
      const upstream = request({ createConnection: () => socket, method: req.method, path: `${target.pathname}${target.search}`, headers }, (answer) => {
        const back: OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) back[name] = value;
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, back);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    }, () => res.destroy()); // no answer at all: the browser reports a failed load, and failureFor says why
  }
}

function parseTarget(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}
