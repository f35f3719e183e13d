// What the codehost extension holds while it runs: the sealer for webhook secrets, the deliverer of
// outbound webhooks and the mention poller.
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { Sealer } from '../_shared/sealed.js';
import { Deliverer, deliveryConfig } from './deliveries.js';
import { Poller } from './poller.js';

interface State {
  deliverer: Deliverer;
  poller: Poller;
  sealer(): Promise<Sealer>;
}

let current: State | undefined;

export function startState(ctx: ExtensionContext): void {
  let sealer: Promise<Sealer> | undefined;
  // Asked for on first use, asked again after a failure.
  const sealerOnce = () => (sealer ??= Sealer.forExtension(ctx.host).catch((err: unknown) => {
    sealer = undefined;
    throw err;
  }));
  current = { deliverer: new Deliverer(ctx, sealerOnce, deliveryConfig(ctx)), poller: new Poller(ctx), sealer: sealerOnce };
  current.deliverer.start();
}

export function stopState(): void {
  current?.deliverer.stop();
  current?.poller.stop();
}

export function state(): State {
  if (!current) throw new RoostError('EXTENSION_UNAVAILABLE', 'the codehost extension has not started');
  return current;
}
