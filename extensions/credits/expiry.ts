// Holds that are never committed or released (a crashed session, a lost connection) are released when
// they expire: here on a timer, and also lazily whenever the wallet's balance is read or reserved.
import type { ExtensionContext } from '../../sdk/extension.js';
import { announceBalance } from './announce.js';
import { Reservations } from './reservations.js';

const SWEEP_MS = 5_000;

/** Starts the sweep; its timer is the extension's running state (what setup returns). */
export function startExpirySweep(ctx: ExtensionContext): NodeJS.Timeout {
  const sweep = async () => {
    try {
      for (const change of await new Reservations(ctx.db).expire()) announceBalance(ctx, change);
    } catch (err) {
      ctx.host.log('warn', `releasing expired reservations failed: ${(err as Error).message}`);
    }
  };
  const timer = setInterval(() => void sweep(), SWEEP_MS);
  timer.unref();
  return timer;
}

export function stopExpirySweep(_ctx: ExtensionContext, timer: NodeJS.Timeout): void {
  clearInterval(timer);
}
