// The ports the server answers on: the main one (ROOST_PORT on ROOST_HOST) and each further one an
// extension asks for (extra-ports.ts), all with one handler, the same connection limits and WebSocket
// upgrades, and each with its own drain for a graceful stop.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RoostError } from '../../protocol/errors.js';
import type { ServerConfig } from '../config.js';
import type { Log } from '../log.js';
import { answerClientErrors } from './client-errors.js';
import { httpServerOptions, limitConnections } from './connection-limits.js';
import { HttpDrain } from './drain.js';
import { listenExtraPort, type ExtraPort } from './extra-ports.js';

/**
 * Connections the kernel may queue before accepting them: Node's default (511) overflows when a thousand
 * clients connect at once, and each refused SYN costs its client a 1 s retransmit. Linux caps it at somaxconn.
 */
const LISTEN_BACKLOG = 4096;

export interface ListenerWiring {
  /** Every request, on every port. */
  handler: RequestListener;
  /** Wires a port as the others (WebSocket upgrades). */
  attach(server: Server): void;
  /** A connection refused for its address's limit. */
  onRefused(): void;
  /** Where a default port that could not be had is said. */
  log: Log;
}

export class Listeners {
  readonly main: Server;
  private readonly servers: Array<{ server: Server; drain: HttpDrain }> = [];

  constructor(private readonly config: ServerConfig, private readonly wiring: ListenerWiring) {
    const drain = new HttpDrain();
    this.main = this.create(createServer(httpServerOptions(config), this.draining(drain)));
    this.servers.push({ server: this.main, drain });
  }

  /** The main port as it listens (config.port until then: 0 means not yet known). */
  get port(): number {
    const address = this.main.address() as AddressInfo | null;
    return address ? address.port : this.config.port;
  }

  /** Listens on the main port, then on each further one. */
  async listen(extra: ExtraPort[]): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.main.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, this.config)));
      this.main.listen({ port: this.config.port, host: this.config.host, backlog: LISTEN_BACKLOG }, () => resolve());
    });
    for (const port of extra) {
      const drain = new HttpDrain();
      const server = await listenExtraPort(port, this.config.host, this.draining(drain), (s) => this.wire(s), httpServerOptions(this.config), this.wiring.log);
      if (server) this.servers.push({ server, drain });
    }
    return this.port;
  }

  /** Stops every port: in-flight requests finish until `deadline` (epoch ms). */
  drain(deadline: number): Promise<unknown> {
    return Promise.all(this.servers.map(({ server, drain }) => drain.drain(server, deadline)));
  }

  private create(server: Server): Server {
    server.keepAliveTimeout = 65_000;
    answerClientErrors(server);
    this.wire(server);
    return server;
  }

  private wire(server: Server): void {
    limitConnections(server, this.config, () => this.wiring.onRefused());
    this.wiring.attach(server);
  }

  /** The handler behind `drain`, which then knows each response in flight on its port. */
  private draining(drain: HttpDrain) {
    return (req: IncomingMessage, res: ServerResponse) => {
      drain.track(res);
      this.wiring.handler(req, res);
    };
  }
}

/** A port someone else holds is the one start-up failure a person fixes at once: say so, and how. */
function listenError(err: NodeJS.ErrnoException, config: ServerConfig): Error {
  const where = `${config.host}:${config.port}`;
  if (err.code === 'EADDRINUSE') {
    return new RoostError('PORT_IN_USE', `port ${config.port} is already in use on ${config.host}: stop what holds it, or start on another port with --port (or ROOST_PORT; --port 0 takes a free one)`);
  }
  if (err.code === 'EACCES') return new RoostError('PORT_DENIED', `${where} may not be bound by this user (ports below 1024 need privileges): choose another with --port`);
  return err;
}
