// The credits extension's running state (what setup returns): the expiry sweep's timer and the batcher
// of new agents' wallets.
import type { ExtensionContext } from '../../sdk/extension.js';
import { startExpirySweep, stopExpirySweep } from './expiry.js';
import { WalletOpenings } from './wallet-openings.js';

export interface CreditsState {
  sweep: NodeJS.Timeout;
  walletOpenings: WalletOpenings;
}

export function startCredits(ctx: ExtensionContext): CreditsState {
  return { sweep: startExpirySweep(ctx), walletOpenings: new WalletOpenings(ctx) };
}

export async function stopCredits(ctx: ExtensionContext, state: CreditsState): Promise<void> {
  stopExpirySweep(ctx, state.sweep);
  await state.walletOpenings.idle();
}
