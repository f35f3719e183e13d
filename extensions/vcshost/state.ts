// What the vcshost extension holds while it runs: the sealer for webhook secrets, the deliverer of
// outbound webhooks and the mention poller.
import type { ExtensionContext } from '../../sdk/extension.js';
import { Sealer } from '../../sdk/sealed.js';
import { Deliverer, deliveryConfig } from './deliveries.js';
import { Poller } from './poller.js';

export interface State {
  deliverer: Deliverer;
  poller: Poller;
  sealer(): Promise<Sealer>;
}

export function startState(ctx: ExtensionContext): State {
  let sealer: Promise<Sealer> | undefined;
  // Asked for on first use, asked again after a failure.
  const sealerOnce = () => (sealer ??= Sealer.forExtension(ctx.host).catch((err: unknown) => {
    sealer = undefined;
    throw err;
  }));
  const deliverer = new Deliverer(ctx, sealerOnce, deliveryConfig(ctx));
  deliverer.start();
  return { deliverer, poller: new Poller(ctx, deliverer), sealer: sealerOnce };
}

export function stopState(_ctx: ExtensionContext, state: State): void {
  state.deliverer.stop();
  state.poller.stop();
}
