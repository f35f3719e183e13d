// Which instance runs a session: with several instances on one PostgreSQL database, the one holding the
// session's advisory lock (on a connection kept for that). A lock dies with its holder's connection,
// so when an instance goes away another can take its live sessions over. On SQLite there is one
// process, which holds them all.
import type pg from 'pg';
import type { StorageInfo } from '../../protocol/messages.js';
import { advisoryKey } from '../../lib/storage.js';

export class SessionHolds {
  private client: Promise<pg.Client> | undefined;

  /** onLost: the connection holding the locks is gone, and with it every hold (another instance may take them). */
  constructor(private readonly storage: StorageInfo | undefined, private readonly onLost: (reason: string) => void) {}

  /** Whether sessions may be held by other instances (and commands for them must travel). */
  get shared(): boolean {
    return this.storage?.client === 'pg';
  }

  /** Takes the session for this instance; false when another instance holds it. */
  async hold(sessionId: string): Promise<boolean> {
    if (!this.shared) return true;
    const client = await this.connect();
    const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS held', advisoryKey(`roost:session:${sessionId}`));
    return rows[0]!.held;
  }

  async release(sessionId: string): Promise<void> {
    if (!this.shared || !this.client) return;
    const client = await this.client;
    await client.query('SELECT pg_advisory_unlock($1, $2)', advisoryKey(`roost:session:${sessionId}`)).catch(() => undefined);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined; // closing on purpose: not a loss
    await (await client?.catch(() => undefined))?.end().catch(() => undefined);
  }

  private connect(): Promise<pg.Client> {
    return (this.client ??= (async () => {
      const { default: driver } = await import('pg');
      const client = new driver.Client({ connectionString: this.storage!.connection as string });
      let lost = false;
      const gone = (reason: string) => {
        if (lost || this.client === undefined) return;
        lost = true;
        this.client = undefined;
        this.onLost(reason);
      };
      client.on('error', (err) => gone(err.message));
      client.on('end', () => gone('the connection ended'));
      await client.connect();
      return client;
    })());
  }
}
