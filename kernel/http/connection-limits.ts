// Slow and greedy clients. Every listening port:
// - cuts a connection whose request headers have not all arrived within ROOST_HEADERS_TIMEOUT_MS, or
//   whose whole request has not within ROOST_REQUEST_TIMEOUT_MS (408, answered by client-errors.ts),
//   looking every second, so a client that trickles bytes (slowloris) holds nothing for long;
// - lets one remote address hold at most ROOST_MAX_CONNECTIONS_PER_ADDRESS connections at once
//   (ROOST_MAX_LOOPBACK_CONNECTIONS for this machine's own, the owner and local reverse proxies). The
//   one over gets 503 with Retry-After and is closed before anything reads from it.
// WebSocket connections count too: an upgrade keeps its connection.
import { STATUS_CODES, type ServerOptions, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { RoostError } from '../../protocol/errors.js';
import { isLoopback } from '../auth/identity.js';
import type { ServerConfig } from '../config.js';

/** How often node looks for requests past their timeouts (its default is every 30 s). */
const CHECK_EVERY_MS = 1_000;

type Limits = Pick<ServerConfig, 'headersTimeoutMs' | 'requestTimeoutMs' | 'maxConnectionsPerAddress' | 'maxLoopbackConnections'>;

/** The options every listening port is created with. */
export function httpServerOptions(config: Limits): ServerOptions {
  return {
    headersTimeout: config.headersTimeoutMs,
    // node requires requestTimeout ≥ headersTimeout (0: none).
    requestTimeout: config.requestTimeoutMs === 0 ? 0 : Math.max(config.requestTimeoutMs, config.headersTimeoutMs),
    connectionsCheckingInterval: CHECK_EVERY_MS,
  };
}

/** Counts each address's open connections and refuses the one past its cap; onRefused counts it. */
export function limitConnections(server: Server, config: Limits, onRefused: () => void): void {
  const open = new Map<string, number>();
  // Before node's own listener, so a refused connection is never read.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const cap = isLoopback(address) ? config.maxLoopbackConnections : config.maxConnectionsPerAddress;
    const count = open.get(address) ?? 0;
    if (cap > 0 && count >= cap) {
      onRefused();
      return refuse(socket, cap);
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

function refuse(socket: Socket, cap: number): void {
  const error = new RoostError('TOO_MANY_CONNECTIONS', `this address already has ${cap} connections open, the most it may: reuse them (keep-alive) or close some`, { details: { retryAfter: 1 } });
  const body = JSON.stringify(error.toBody());
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 503 ${STATUS_CODES[503]}\r\nContent-Type: application/json\r\nRetry-After: 1\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
