// Sends what the outbox holds: once right away when a delivery is queued, then again on a timer with
// exponential backoff until it is delivered or out of attempts. Only the leader of "outbox" sends from
// the timer, so instances sharing a database do not race; pending rows outlive any restart, and the
// extension asks to be started with the server while it holds some.
import type { ExtensionContext } from '../../sdk/extension.js';
import type { ChannelStore } from './channels.js';
import { backoffMs, MAX_ATTEMPTS, type Settings } from './config.js';
import type { Delivery, DeliveryStore } from './deliveries.js';
import { QueuedUpstream, send } from './send.js';

const STALE_SENDING_MS = 5 * 60_000;
/** A message a bridge holds in its own outbox is asked about again at least this often. */
const UPSTREAM_CHECK_MAX_MS = 60_000;

export class Outbox {
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private wake: boolean | undefined;
  /** Called after a delivery went out (a question's dispatch may need closing at once). */
  onDelivered: (delivery: Delivery) => Promise<void> = async () => undefined;
  /** Other work that needs the extension running after a restart (pending questions). */
  otherWork: () => Promise<boolean> = async () => false;

  constructor(private readonly ctx: ExtensionContext, private readonly store: DeliveryStore, private readonly channels: ChannelStore, private readonly settings: Settings) {}

  start(): void {
    const every = Math.max(100, Math.min(1_000, this.settings.retryBaseMs / 2));
    this.timer = setInterval(() => void this.tick(), every);
    this.timer.unref();
    void this.store.releaseStale(new Date(Date.now() - STALE_SENDING_MS)).then(() => this.tick());
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Queued rows are tried at once (in the background: a slow channel never holds up the caller). */
  async kick(deliveries: Delivery[]): Promise<void> {
    await this.keepAwake();
    for (const d of deliveries) void this.attempt(d.id);
  }

  /** Tries one delivery now; waits for the outcome. */
  async attempt(id: string): Promise<void> {
    const delivery = await this.store.claim(id);
    if (!delivery) return;
    const attempts = delivery.attempts + 1;
    try {
      const target = await this.channels.target(delivery.tenantId, delivery.channelId);
      if (!target) {
        await this.store.failed(id, 'the channel was deleted', attempts, null);
        return;
      }
      const externalId = await send(this.ctx.host, delivery, target, this.settings);
      await this.store.delivered(id, externalId, attempts);
      // Outside the failure path below: what follows a delivery never marks it failed.
      void this.onDelivered({ ...delivery, externalId, status: 'delivered', attempts }).catch((err: Error) => this.ctx.host.log('warn', `notifications: after delivery ${id}: ${err.message}`));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (err instanceof QueuedUpstream) {
        // Not a failure: the bridge's outbox retries on its own; ask again soon for the outcome.
        await this.store.queuedUpstream(id, reason, new Date(Date.now() + Math.min(backoffMs(attempts, this.settings.retryBaseMs), UPSTREAM_CHECK_MAX_MS))).catch(() => undefined);
        return;
      }
      const next = attempts < MAX_ATTEMPTS ? new Date(Date.now() + backoffMs(attempts, this.settings.retryBaseMs)) : null;
      await this.store.failed(id, reason, attempts, next).catch(() => undefined);
      this.ctx.host.log('warn', `notifications: delivery ${id} to ${delivery.channelType} failed (attempt ${attempts}): ${reason}`);
    }
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      // The database first: an idle outbox sends the host nothing, so the extension can stop when idle.
      const due = await this.store.due(new Date(), 50);
      if (due.length === 0 || !(await this.ctx.host.leader('outbox'))) return;
      await Promise.all(due.map((id) => this.attempt(id)));
      await this.keepAwake();
    } catch (err) {
      this.ctx.host.log('warn', `notifications: outbox tick failed: ${(err as Error).message}`);
    } finally {
      this.ticking = false;
    }
  }

  /** Started with the server while anything is still to send, so retries survive a restart. */
  async keepAwake(): Promise<void> {
    const wake = (await this.store.hasOpenWork()) || (await this.otherWork());
    if (wake === this.wake) return;
    this.wake = wake;
    await this.ctx.host.wakeOnStart(wake);
  }
}
