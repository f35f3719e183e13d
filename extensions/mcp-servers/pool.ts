// The live client connections, one per config in use: opened on first need (concurrent askers share
// the opening), reopened when the config changed or the connection died (a crashed stdio server is
// restarted on its next use), closed after an idle period, and all closed when the extension stops.
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Connection, type Timeouts } from './connection.js';
import type { ConnectableConfig } from './store.js';

export interface PoolOptions extends Timeouts {
  idleMs: number;
  /** The fetch an HTTP config's connection uses: guarded within its tenant's reach. */
  fetchFor(config: ConnectableConfig): FetchLike;
}

export class ConnectionPool {
  private readonly live = new Map<string, Promise<Connection>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: PoolOptions) {
    this.sweeper = setInterval(() => void this.closeIdle(), Math.min(options.idleMs, 30_000));
    this.sweeper.unref();
  }

  /** The tools the server lists now (asked again, so a test shows the current list). */
  async listTools(config: ConnectableConfig): Promise<Tool[]> {
    return (await this.connection(config)).refreshTools(this.options.connectMs);
  }

  /** The tools listed when the connection opened (what a session is offered). */
  async cachedTools(config: ConnectableConfig): Promise<Tool[]> {
    const connection = await this.connection(config);
    connection.lastUsed = Date.now();
    return connection.tools;
  }

  async call(config: ConnectableConfig, tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
    // Not retried when it fails: the tool may have done its work before the server died.
    return (await this.connection(config)).call(tool, args, this.options.callMs);
  }

  async drop(id: string): Promise<void> {
    const pending = this.live.get(id);
    this.live.delete(id);
    const connection = await pending?.catch(() => undefined);
    await connection?.close();
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.live.keys()].map((id) => this.drop(id)));
  }

  private async connection(config: ConnectableConfig): Promise<Connection> {
    const pending = this.live.get(config.id);
    if (pending) {
      const current = await pending.catch(() => undefined);
      if (current?.open && current.version === config.updatedAt) return current;
      if (this.live.get(config.id) === pending) await this.drop(config.id);
      else return this.connection(config); // someone else replaced it meanwhile
    }
    const opening = Connection.open(config, this.options, this.options.fetchFor(config));
    this.live.set(config.id, opening);
    opening.catch(() => {
      if (this.live.get(config.id) === opening) this.live.delete(config.id);
    });
    return opening;
  }

  private async closeIdle(): Promise<void> {
    const now = Date.now();
    for (const [id, pending] of this.live) {
      const connection = await pending.catch(() => undefined);
      if (connection && connection.inFlight === 0 && now - connection.lastUsed > this.options.idleMs) await this.drop(id);
    }
  }
}
