// The bus across instances that share a PostgreSQL database: what is published on one instance is sent
// with NOTIFY on channel roost_bus and delivered, on every other instance, by its LISTEN connection.
// A notification holds at most 8000 bytes: a larger event is written to roost_kernel.bus_events and the
// notification carries its id. Each instance ignores its own notifications (it delivered them already).
// One connection sends, in publish order; one listens, and delivers in arrival order.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';
import { pgTypes } from '../lib/storage.js';
import type { BusEvent, EventBus } from './bus.js';

const CHANNEL = 'roost_bus';
/** Below PostgreSQL's 8000-byte limit on a notification's payload, with room for the envelope. */
const MAX_INLINE_BYTES = 7_000;
/** Rows of large events are kept this long: every listener has fetched them well before. */
const ROW_TTL_MS = 5 * 60_000;
const SWEEP_MS = 60_000;
const RECONNECT_MS = 1_000;

/** On the wire: origin instance, topic, tenant, source, payload — or origin and the row holding the rest. */
type Wire = { o: string; t: string; n: string | null; s: string; p: unknown } | { o: string; r: number };

export class BusLink {
  readonly instanceId = randomUUID();
  private sender: pg.Client | undefined;
  private listener: pg.Client | undefined;
  private pending: BusEvent[] = [];
  /** Events of the batch being sent now. */
  private inBatch = 0;
  private sending: Promise<void> | undefined;
  private delivering: Promise<void> = Promise.resolve();
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly db: Knex,
    private readonly bus: EventBus,
    private readonly log: (level: string, message: string) => void,
  ) {}

  async start(): Promise<void> {
    this.sender = await this.connect();
    await this.listen();
    this.bus.linkTo((event) => this.forward(event));
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.bus.linkTo(undefined);
    if (this.sweeper) clearInterval(this.sweeper);
    await this.sending?.catch(() => undefined);
    await Promise.all([this.sender?.end().catch(() => undefined), this.listener?.end().catch(() => undefined)]);
  }

  /** Events published here and not yet sent to the other instances. */
  get backlog(): number {
    return this.pending.length + this.inBatch;
  }

  private forward(event: BusEvent): void {
    if (this.closed) return;
    this.pending.push(event);
    this.sending ??= this.flush().finally(() => (this.sending = undefined));
  }

  /** Sends everything queued, in order, one round trip per batch (plus one insert per large event). */
  private async flush(): Promise<void> {
    while (this.pending.length > 0 && !this.closed) {
      const batch = this.pending.splice(0);
      this.inBatch = batch.length;
      try {
        const payloads: string[] = [];
        for (const e of batch) {
          const inline = JSON.stringify({ o: this.instanceId, t: e.topic, n: e.tenantId, s: e.source, p: e.payload } satisfies Wire);
          if (Buffer.byteLength(inline) <= MAX_INLINE_BYTES) payloads.push(inline);
          else {
            const [row] = await this.db('bus_events').insert({ body: inline, created_at: new Date().toISOString() }).returning('id');
            payloads.push(JSON.stringify({ o: this.instanceId, r: Number((row as { id: number }).id) } satisfies Wire));
          }
        }
        await this.sender!.query('SELECT pg_notify($1, p) FROM unnest($2::text[]) WITH ORDINALITY AS batch(p, n) ORDER BY n', [CHANNEL, payloads]);
      } catch (err) {
        this.log('error', `bus: ${batch.length} event(s) not sent to the other instances: ${(err as Error).message}`);
        if (this.closed) return;
        this.sender = await this.reconnect(this.sender).catch(() => undefined); // undefined: closed meanwhile
      } finally {
        this.inBatch = 0;
      }
    }
  }

  private async listen(): Promise<void> {
    const client = await this.connect();
    client.on('notification', (n) => {
      if (n.channel !== CHANNEL || !n.payload) return;
      const payload = n.payload;
      this.delivering = this.delivering.then(() => this.deliver(payload)).catch((err) => this.log('error', `bus: an event from another instance was lost: ${(err as Error).message}`));
    });
    client.on('error', (err) => {
      if (this.closed) return;
      // Events published while it reconnects are missed here; streams that replay recover them.
      this.log('warn', `bus: the LISTEN connection failed (${err.message}); reconnecting`);
      void this.relisten(client);
    });
    await client.query(`LISTEN ${CHANNEL}`);
    this.listener = client;
  }

  private async relisten(broken: pg.Client): Promise<void> {
    await broken.end().catch(() => undefined);
    while (!this.closed) {
      try {
        return await this.listen();
      } catch {
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    }
  }

  private async deliver(text: string): Promise<void> {
    let wire = JSON.parse(text) as Wire;
    if (wire.o === this.instanceId) return;
    if ('r' in wire) {
      const row = await this.db('bus_events').where({ id: wire.r }).first<{ body: string } | undefined>();
      if (!row) throw new Error(`event row ${wire.r} is gone`);
      wire = JSON.parse(row.body) as Wire;
    }
    if ('t' in wire) this.bus.receive({ topic: wire.t, tenantId: wire.n, source: wire.s, payload: wire.p });
  }

  private async sweep(): Promise<void> {
    const before = new Date(Date.now() - ROW_TTL_MS).toISOString();
    await this.db('bus_events').where('created_at', '<', before).delete().catch((err: Error) => this.log('warn', `bus: sweeping old events failed: ${err.message}`));
  }

  private async connect(): Promise<pg.Client> {
    const { default: driver } = await import('pg');
    const client = new driver.Client({ connectionString: this.url, types: pgTypes() });
    client.on('error', () => undefined); // reported by the query that meets it
    await client.connect();
    return client;
  }

  /** A fresh connection in place of a broken one, tried until it works or the link closes. */
  private async reconnect(old: pg.Client | undefined): Promise<pg.Client> {
    await old?.end().catch(() => undefined);
    for (;;) {
      try {
        return await this.connect();
      } catch (err) {
        if (this.closed) throw err;
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    }
  }
}
