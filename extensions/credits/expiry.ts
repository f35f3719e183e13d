// Holds that are never committed or released (a crashed session, a lost connection) are released when
// they expire: here on a timer, and also lazily whenever the wallet's balance is read or reserved.
import type { ExtensionContext } from '../../sdk/extension.js';
import { announceBalance } from './announce.js';
import { Reservations } from './reservations.js';

const SWEEP_MS = 5_000;
let timer: NodeJS.Timeout | undefined;

export function startExpirySweep(ctx: ExtensionContext): void {
  const sweep = async () => {
    try {
      for (const change of await new Reservations(ctx.db).expire()) announceBalance(ctx, change);
    } catch (err) {
      ctx.host.log('warn', `releasing expired reservations failed: ${(err as Error).message}`);
    }
  };
  timer = setInterval(() => void sweep(), SWEEP_MS);
  timer.unref();
}

export function stopExpirySweep(): void {
  if (timer) clearInterval(timer);
  timer = undefined;
}
