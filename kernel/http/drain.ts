// Stopping the HTTP server gracefully: no new connections, idle keep-alive sockets closed at once, busy
// ones after the response they are sending (which says `Connection: close`), and whatever is still
// open at the deadline is cut.
import type { Server, ServerResponse } from 'node:http';

export class HttpDrain {
  /** Set once the drain has begun. */
  private server: Server | undefined;
  private readonly inFlight = new Set<ServerResponse>();

  /** Every request passes here first, so a response sent while draining closes its connection. */
  track(res: ServerResponse): void {
    if (this.server) res.setHeader('Connection', 'close');
    this.inFlight.add(res);
    res.once('close', () => {
      this.inFlight.delete(res);
      // A response whose headers went out before the drain leaves its socket idle: close it now.
      this.server?.closeIdleConnections();
    });
  }

  /** Resolves true once every connection is gone, or false when the deadline (epoch ms) cut the rest. */
  drain(server: Server, deadline: number): Promise<boolean> {
    this.server = server;
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        server.closeAllConnections();
        resolve(false);
      }, Math.max(0, deadline - Date.now()));
      server.close(() => {
        clearTimeout(timer);
        resolve(true);
      });
      server.closeIdleConnections();
    });
  }
}
