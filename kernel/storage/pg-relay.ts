// How a sandboxed extension reaches PostgreSQL without a network: the kernel listens on a Unix socket
// in the extension's own folder (the one place its sandbox shows it) and relays each connection,
// byte for byte (TLS negotiation included), to the database server. The extension connects to that
// socket as its own role; it can reach the database server and nothing else.
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

export class PgRelays {
  private readonly servers = new Map<string, Server>();
  private readonly sockets = new Set<Socket>();

  constructor(private readonly target: { host: string; port: number }) {}

  /** The folder holding the socket (PostgreSQL's `.s.PGSQL.<port>`) relaying for `owner`, opened on first use. */
  async open(owner: string, folder: string): Promise<string> {
    const dir = join(realpathSync(folder), 'pg');
    if (this.servers.has(owner)) return dir;
    await mkdir(dir, { recursive: true });
    const path = join(dir, `.s.PGSQL.${this.target.port}`);
    if (existsSync(path)) await rm(path); // left by a server that did not stop cleanly
    const server = createServer((client) => this.relay(client));
    this.servers.set(owner, server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    return dir;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all([...this.servers.values()].map((server) => new Promise((resolve) => server.close(resolve))));
    this.servers.clear();
  }

  private relay(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }
}
