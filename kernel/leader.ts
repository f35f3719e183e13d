// Singletons across instances: for each name, at most one instance leads — the one holding a
// PostgreSQL advisory lock on a connection kept for that. The others retry every leaderRetryMs, so
// when the leader goes away (its connection, and with it the lock, is gone) another takes over. On
// SQLite there is one process, which leads everything. Extensions ask with the `leader` message.
// Advisory locks belong to the whole database, and an extension's own role may take any: the lock of a
// name is derived with a kernel secret, so no extension can compute it to take (or hold off) another's.
import type pg from 'pg';
import { advisoryKey } from '../lib/storage.js';

interface Campaign {
  key: [number, number];
  leading: boolean;
}

export class Leadership {
  private readonly campaigns = new Map<string, Campaign>();
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private trying: Promise<void> | undefined;
  private closed = false;

  private salt: Promise<string> | undefined;

  /** databaseUrl: PostgreSQL (instances may share it), or undefined (this process leads everything); secret: the same on every instance. */
  constructor(
    private readonly databaseUrl: string | undefined,
    private readonly retryMs: number,
    private readonly log: (level: string, message: string) => void,
    private readonly secret: () => Promise<string> = async () => '',
  ) {}

  /** Whether this instance leads `name` now; the first ask enters it in the running for `name`. */
  async leads(name: string): Promise<boolean> {
    if (!this.databaseUrl) return true;
    if (this.closed) return false;
    if (!this.campaigns.has(name)) {
      const salt = await (this.salt ??= this.secret().catch((err: unknown) => {
        this.salt = undefined; // asked again next time
        throw err;
      }));
      if (this.campaigns.has(name)) return this.campaigns.get(name)!.leading;
      this.campaigns.set(name, { key: advisoryKey(`roost:leader:${salt}:${name}`), leading: false });
      this.timer ??= setInterval(() => void this.tryAll(), this.retryMs).unref();
      await this.tryAll();
    }
    return this.campaigns.get(name)!.leading;
  }

  /** Leaves the running for `name` (and lets another instance lead it at once). */
  async resign(name: string): Promise<void> {
    const campaign = this.campaigns.get(name);
    this.campaigns.delete(name);
    if (campaign?.leading && this.client) await this.client.query('SELECT pg_advisory_unlock($1, $2)', campaign.key).catch(() => undefined);
  }

  /** Leaves the running for every name of `owner` ("<owner>:<name>"): an extension unloaded here. */
  async resignOwner(owner: string): Promise<void> {
    for (const name of [...this.campaigns.keys()].filter((n) => n.startsWith(`${owner}:`))) await this.resign(name);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.trying;
    for (const campaign of this.campaigns.values()) campaign.leading = false;
    await this.client?.end().catch(() => undefined); // the locks go with the connection
    this.client = undefined;
  }

  /** One pass at once: tries the lock of every name not led yet, and notices a lost connection. */
  private tryAll(): Promise<void> {
    return (this.trying ??= this.pass().finally(() => (this.trying = undefined)));
  }

  private async pass(): Promise<void> {
    try {
      const client = await this.connect();
      // Also the liveness check of the connection that holds the locks already taken.
      for (const [name, campaign] of this.campaigns) {
        if (campaign.leading) continue;
        const { rows } = await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS held', campaign.key);
        campaign.leading = rows[0]!.held;
        if (campaign.leading) this.log('info', `leader: this instance now leads "${name}"`);
      }
      if ([...this.campaigns.values()].every((c) => c.leading)) await client.query('SELECT 1');
    } catch (err) {
      this.lost(`the connection holding leadership failed: ${(err as Error).message}`);
    }
  }

  private async connect(): Promise<pg.Client> {
    if (this.client) return this.client;
    const { default: driver } = await import('pg');
    const client = new driver.Client({ connectionString: this.databaseUrl });
    client.on('error', (err) => this.lost(`the connection holding leadership failed: ${err.message}`));
    await client.connect();
    if (this.closed) {
      await client.end();
      throw new Error('closed');
    }
    return (this.client = client);
  }

  /** Locks die with their connection: lead nothing until the next pass takes them again. */
  private lost(reason: string): void {
    if (this.closed) return;
    const led = [...this.campaigns].filter(([, c]) => c.leading).map(([name]) => name);
    for (const campaign of this.campaigns.values()) campaign.leading = false;
    if (led.length > 0) this.log('warn', `leader: ${reason}; no longer leading ${led.join(', ')}`);
    void this.client?.end().catch(() => undefined);
    this.client = undefined;
  }
}
