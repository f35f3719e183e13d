// A canned answer served to this process itself, for warming a provider's client up before its first
// real call (a spare agent runner does it while it waits for a session): an HTTP server on loopback
// that answers every request with the same body. A process's first fetch costs about 80 ms of CPU more
// than the next (Node loads and first runs its HTTP client); a call through this server pays it.
import { createServer } from 'node:http';

export interface CannedAnswer {
  /** The base URL to send to. */
  url: string;
  close(): void;
}

/** The server, listening; null where no port can be opened (a sandbox without loopback). */
export async function answerOnLoopback(body: string, contentType: string): Promise<CannedAnswer | null> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': contentType }).end(body));
  });
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, '127.0.0.1', () => resolve(true));
  });
  if (!listening) return null;
  server.unref();
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
