// A bridge's durable outbox: every message the bridge sends (an agent's reply, a notification, an owner
// question and its closing, a message an agent or tool sends) is stored first, then sent by the bridge's
// own `send`, in order and paced per chat channel. A failure (the service is down, it rate-limits)
// leaves the row in line and it is retried with exponential backoff, across restarts (the extension asks to be started
// while rows wait), until it is sent or out of attempts. Nobody waits on a send longer than they choose:
// a chat turn hands its reply over and ends; a route or tool waits a few seconds and answers "queued"
// with the row's id when the message has not left yet.
//
// A row may carry an idempotency key: submitting the same key again (a retried deliver call, an agent
// repeating a tool call) answers the first row's status instead of sending twice.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ExtensionContext } from '../extension.js';
import { KeyedWaiters } from '../waiters.js';
import { ChannelPacer } from './limits.js';
import { KeyedSerial } from './serial.js';
import type { WakeFlags } from './wake.js';

export interface OutboxOptions {
  /** The first retry's delay; each next one doubles, up to an hour. */
  retryBaseMs: number;
  maxAttempts: number;
  /** Sends to one chat channel leave at least this far apart (the service's own per-channel limit). */
  paceMs: number;
}

export interface OutboxRow<Op> {
  id: string;
  tenantId: string;
  channelKey: string;
  op: Op;
  attempts: number;
}

export interface OutboxStatus {
  id: string;
  status: 'sent' | 'queued' | 'failed';
  externalId: string | null;
  attempts: number;
  lastError: string | null;
}

/** Retries of one message are at most this far apart: a channel back after an outage is not left idle long. */
const MAX_BACKOFF_MS = 5 * 60_000;
const STALE_SENDING_MS = 5 * 60_000;
const KEEP_DONE_MS = 7 * 24 * 3_600_000;

export class BridgeOutbox<Op> {
  private readonly serial = new KeyedSerial();
  private readonly waiters = new KeyedWaiters();
  private readonly pacer: ChannelPacer;
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private lastPrune = 0;

  constructor(
    private readonly ctx: ExtensionContext,
    private readonly db: Knex,
    private readonly wake: WakeFlags,
    private readonly send: (row: OutboxRow<Op>) => Promise<string>,
    private readonly options: OutboxOptions,
  ) {
    this.pacer = new ChannelPacer(options.paceMs);
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), Math.max(100, Math.min(1_000, this.options.retryBaseMs / 2)));
    this.timer.unref();
    const stale = new Date(Date.now() - STALE_SENDING_MS).toISOString();
    void this.db('outbox').where({ status: 'sending' }).andWhere('updated_at', '<', stale).update({ status: 'pending' })
      .then(() => this.tick(), (err: Error) => this.ctx.host.log('warn', `outbox: releasing stale rows failed: ${err.message}`));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * Stores the message and tries to send it at once (behind earlier messages to the same channel);
   * answers within `waitMs` with where it stands. `key`: the idempotency key; a key reused after
   * `keyWindowMs` starts a new message.
   */
  async submit(tenantId: string, channelKey: string, op: Op, options: { waitMs: number; key?: string; keyWindowMs?: number } = { waitMs: 0 }): Promise<OutboxStatus> {
    const known = options.key ? await this.existing(options.key, options.keyWindowMs) : undefined;
    if (known) {
      // The same message again: a settled one answers at once.
      const now = await this.status(known);
      if (now && now.status !== 'queued') return now;
    }
    const id = known ?? (await this.insert(tenantId, channelKey, op, options.key ?? null));
    await this.wake.set('outbox', true);
    const waited = options.waitMs > 0 ? this.waiters.wait(id, options.waitMs) : Promise.resolve();
    void this.drain(channelKey);
    await waited;
    return (await this.status(id))!;
  }

  async status(id: string): Promise<OutboxStatus | undefined> {
    const row = await this.db('outbox').where({ id }).first();
    if (!row) return undefined;
    const status = row.status === 'sent' ? 'sent' : row.status === 'failed' ? 'failed' : 'queued';
    return { id, status, externalId: row.external_id ?? null, attempts: Number(row.attempts), lastError: row.last_error ?? (status === 'queued' ? await this.blockedBy(row) : null) };
  }

  /** Why a row not tried yet waits: the failure of an earlier message to the same channel, if any. */
  private async blockedBy(row: Record<string, any>): Promise<string | null> {
    const head = await this.db('outbox').where({ channel_key: row.channel_key, status: 'pending' }).andWhere('created_at', '<=', row.created_at).whereNot({ id: row.id }).whereNotNull('last_error').orderBy('created_at').first('last_error');
    return head ? `waiting behind an earlier message to the same chat, which failed: ${String(head.last_error)}` : null;
  }

  private async existing(key: string, windowMs: number | undefined): Promise<string | undefined> {
    const row = await this.db('outbox').where({ idem_key: key }).first('id', 'created_at');
    if (!row) return undefined;
    if (windowMs !== undefined && Date.parse(row.created_at) < Date.now() - windowMs) {
      await this.db('outbox').where({ id: row.id }).update({ idem_key: null });
      return undefined;
    }
    return row.id;
  }

  private async insert(tenantId: string, channelKey: string, op: Op, key: string | null): Promise<string> {
    const now = new Date().toISOString();
    const id = randomUUID();
    const row = { id, tenant_id: tenantId, channel_key: channelKey, idem_key: key, op: JSON.stringify(op), status: 'pending', attempts: 0, next_attempt_at: now, last_error: null, external_id: null, created_at: now, updated_at: now };
    const inserted = await this.db('outbox').insert(row).onConflict('idem_key').ignore().returning('id');
    // Two submits of one key at once: the second finds the first's row.
    return inserted.length > 0 ? id : (await this.db('outbox').where({ idem_key: key }).first('id')).id;
  }

  /** Sends the channel's due rows in order; stops at the first that fails (it keeps its place in line). */
  private drain(channelKey: string): Promise<void> {
    return this.serial.run(channelKey, async () => {
      for (;;) {
        const row = await this.db('outbox').where({ channel_key: channelKey, status: 'pending' }).orderBy('created_at').orderBy('id').first();
        if (!row || Date.parse(row.next_attempt_at) > Date.now()) return;
        const claimed = await this.db('outbox').where({ id: row.id, status: 'pending' }).update({ status: 'sending', updated_at: new Date().toISOString() });
        if (claimed === 0) return;
        if (!(await this.attempt(row))) return;
      }
    }).catch((err: Error) => this.ctx.host.log('warn', `outbox: sending to ${channelKey} failed: ${err.message}`));
  }

  /** True when the row is done with (sent, or failed for good). */
  private async attempt(row: Record<string, any>): Promise<boolean> {
    const attempts = Number(row.attempts) + 1;
    const now = () => new Date().toISOString();
    try {
      await this.pacer.turn(row.channel_key);
      const externalId = await this.send({ id: row.id, tenantId: row.tenant_id, channelKey: row.channel_key, op: JSON.parse(row.op) as Op, attempts });
      await this.db('outbox').where({ id: row.id }).update({ status: 'sent', attempts, external_id: externalId, last_error: null, updated_at: now() });
      return true;
    } catch (err) {
      const reason = (err as Error).message.slice(0, 2_000);
      const last = attempts >= this.options.maxAttempts;
      const delay = Math.min(this.options.retryBaseMs * 2 ** (attempts - 1), MAX_BACKOFF_MS);
      await this.db('outbox').where({ id: row.id }).update({ status: last ? 'failed' : 'pending', attempts, last_error: reason, next_attempt_at: new Date(Date.now() + delay).toISOString(), updated_at: now() });
      this.ctx.host.log('warn', `outbox: message ${row.id} to ${row.channel_key} failed (attempt ${attempts}${last ? ', giving up' : ''}): ${reason}`);
      return last;
    } finally {
      this.waiters.wake(row.id);
    }
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const due = await this.db('outbox').where({ status: 'pending' }).andWhere('next_attempt_at', '<=', new Date().toISOString()).distinct('channel_key').limit(50);
      if (due.length > 0 && (await this.ctx.host.leader('outbox'))) await Promise.all(due.map((r) => this.drain(r.channel_key)));
      await this.wake.set('outbox', (await this.db('outbox').whereIn('status', ['pending', 'sending']).first('id')) !== undefined);
      if (Date.now() - this.lastPrune > 3_600_000) {
        this.lastPrune = Date.now();
        await this.db('outbox').whereIn('status', ['sent', 'failed']).andWhere('updated_at', '<', new Date(Date.now() - KEEP_DONE_MS).toISOString()).delete();
      }
    } catch (err) {
      this.ctx.host.log('warn', `outbox: tick failed: ${(err as Error).message}`);
    } finally {
      this.ticking = false;
    }
  }

}

/** The outbox table; each bridge creates it in a migration of its own database. */
export async function createOutboxTable(db: Knex): Promise<void> {
  await db.schema.createTable('outbox', (t) => {
    t.string('id').primary();
    t.string('tenant_id').notNullable();
    // What messages are ordered and paced by: the chat channel (or chat) they go to.
    t.string('channel_key').notNullable();
    t.string('idem_key').nullable().unique();
    t.text('op').notNullable();
    t.string('status').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('next_attempt_at').notNullable();
    t.text('last_error').nullable();
    t.string('external_id').nullable();
    t.string('created_at').notNullable();
    t.string('updated_at').notNullable();
    t.index(['status', 'next_attempt_at']);
    t.index(['channel_key', 'status', 'created_at']);
  });
}
