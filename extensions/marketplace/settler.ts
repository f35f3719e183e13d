// Paid uses nobody settles are released to the seller once the buyer's window to report a failure has
// passed (ROOST_EXT_MARKETPLACE_SETTLE_SECONDS, three days by default), so held credits never wait
// forever. While any use is held the extension asks to be started with the server (wake_on_start), so
// the window holds across restarts. Sweeps on several instances are safe: settling claims the use first.
import type { ExtensionContext } from '../../sdk/extension.js';
import { integerSetting } from '../../sdk/settings.js';
import { settleUse } from './settle.js';

const DAY_SECONDS = 24 * 3600;
const SWEEP_BATCH = 100;

/** The running extension's settler, made in setup and handed to the routes by runExtension. */
export function startSettler(ctx: ExtensionContext): Settler {
  const settler = new Settler(ctx);
  settler.start();
  return settler;
}

export async function stopSettler(_ctx: ExtensionContext, settler: Settler): Promise<void> {
  await settler.stop();
}

export class Settler {
  private readonly windowMs: number;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(private readonly ctx: ExtensionContext) {
    this.windowMs = integerSetting(ctx, 'SETTLE_SECONDS', 3 * DAY_SECONDS, 1, 365 * DAY_SECONDS) * 1000;
  }

  start(): void {
    const everyMs = Math.min(Math.max(this.windowMs / 4, 1000), 60_000);
    this.timer = setInterval(() => void this.sweep(), everyMs);
    this.timer.unref();
    void this.sweep();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** A use was just held: make sure the server starts this extension to release it in time. */
  async held(): Promise<void> {
    await this.ctx.host.wakeOnStart(true);
  }

  private sweep(): Promise<void> {
    this.sweeping ??= this.releaseOverdue()
      .catch((err: Error) => this.ctx.host.log('warn', `marketplace: releasing overdue uses failed: ${err.message}`))
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async releaseOverdue(): Promise<void> {
    const cutoff = new Date(Date.now() - this.windowMs).toISOString();
    const overdue = await this.ctx.db('uses').where({ state: 'held' }).whereNull('outcome').where('created_at', '<', cutoff).orderBy('created_at').limit(SWEEP_BATCH);
    const reason = `not disputed within ${Math.round(this.windowMs / 1000)} s: released to the seller`;
    for (const use of overdue) {
      await settleUse(this.ctx, { tenantId: use.tenant_id }, use.tenant_id, use.id, 'success', reason).catch((err: Error) => this.ctx.host.log('warn', `marketplace: releasing use ${use.id} failed: ${err.message}`));
    }
    const stillHeld = await this.ctx.db('uses').where({ state: 'held' }).whereNull('outcome').first('id');
    await this.ctx.host.wakeOnStart(stillHeld !== undefined);
  }
}
