// Long polling: for each tenant whose bot is in polling mode, the instance that leads "poll:<tenant>"
// asks getUpdates in a loop, hands each update to the handler and stores the offset after it. A
// Telegram outage only slows this loop (with backoff); sessions never wait on it.
import type { Update } from 'grammy/types';
import type { WakeFlags } from '../../sdk/bridge/wake.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import type { Bot, TelegramStore } from './store.js';
import { apiFor, reachOf, telegram } from './telegram-api.js';
import type { UpdateHandler } from './updates.js';

const LONG_POLL_SECONDS = 25;
const SUPERVISE_MS = 2_000;
const MAX_BACKOFF_MS = 60_000;

export class Poller {
  private readonly loops = new Map<string, AbortController>();
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly ctx: ExtensionContext, private readonly store: TelegramStore, private readonly handler: UpdateHandler, private readonly wake: WakeFlags) {}

  start(): void {
    this.timer = setInterval(() => void this.supervise(), SUPERVISE_MS);
    this.timer.unref();
    void this.supervise();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    for (const loop of this.loops.values()) loop.abort();
    this.loops.clear();
  }

  /** Stops a tenant's loop at once (its bot changed or went away); the next supervision starts the new one. */
  restart(tenantId: string): void {
    this.loops.get(tenantId)?.abort();
    this.loops.delete(tenantId);
    void this.supervise();
  }

  /** Runs a loop for each polling bot this instance leads, and keeps the server starting us while there are any. */
  private async supervise(): Promise<void> {
    try {
      const bots = await this.store.pollingBots();
      // Told only on a change: with no polling bot (and an empty outbox) the extension may stop when idle.
      await this.wake.set('polling', bots.length > 0);
      for (const bot of bots) {
        const leads = await this.ctx.host.leader(`poll:${bot.tenantId}`);
        const running = this.loops.get(bot.tenantId);
        if (leads && !running) this.run(bot);
        if (!leads && running) this.restart(bot.tenantId);
      }
      for (const tenantId of this.loops.keys()) if (!bots.some((b) => b.tenantId === tenantId)) this.restart(tenantId);
    } catch (err) {
      this.ctx.host.log('warn', `telegram: supervising pollers failed: ${(err as Error).message}`);
    }
  }

  private run(bot: Bot): void {
    const abort = new AbortController();
    this.loops.set(bot.tenantId, abort);
    void this.loop(bot, abort.signal).finally(() => {
      if (this.loops.get(bot.tenantId) === abort) this.loops.delete(bot.tenantId);
    });
  }

  private async loop(stored: Bot, signal: AbortSignal): Promise<void> {
    const bot = { ...stored, reach: reachOf(this.ctx, stored.tenantId, stored.apiRoot) };
    let offset = bot.pollOffset;
    let backoff = 1_000;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        // grammy types its own AbortSignal shim; at run time it takes the platform's.
        updates = await telegram('getUpdates', () => apiFor(bot).getUpdates({ offset, timeout: LONG_POLL_SECONDS, allowed_updates: ['message', 'callback_query'] }, signal as never));
        backoff = 1_000;
      } catch (err) {
        if (signal.aborted) return;
        this.ctx.host.log('warn', `telegram: polling for tenant ${bot.tenantId} failed: ${(err as Error).message}; again in ${backoff / 1000} s`);
        await sleep(backoff, signal);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        continue;
      }
      // handle() never throws and never waits for Telegram: a chat's work goes on in the background.
      for (const update of updates) {
        await this.handler.handle(bot.tenantId, bot, update);
        offset = Math.max(offset, update.update_id + 1);
      }
      if (updates.length > 0) {
        await this.store.setOffset(bot.tenantId, offset).catch((err: Error) => {
          // Kept in memory; the updates already handled are dropped as duplicates if polled again.
          this.ctx.host.log('warn', `telegram: storing the poll offset of tenant ${bot.tenantId} failed: ${err.message}`);
        });
      }
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
