// The bridge's parts, built once at start-up and shared by its routes.
import { DEFAULT_INBOUND_PER_MINUTE } from '../../sdk/bridge/limits.js';
import { WakeFlags } from '../../sdk/bridge/wake.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { Sealer } from '../../sdk/sealed.js';
import { integerSetting } from '../../sdk/settings.js';
import { Poller } from './poller.js';
import { Sender } from './sender.js';
import { TelegramStore } from './store.js';
import { UpdateHandler } from './updates.js';

/** Update ids are remembered this long; Telegram gives up redelivering long before. */
const SEEN_KEPT_MS = 7 * 24 * 3_600_000;

export interface State {
  store: TelegramStore;
  sender: Sender;
  handler: UpdateHandler;
  poller: Poller;
  pruner: NodeJS.Timeout;
}

export async function startState(ctx: ExtensionContext): Promise<State> {
  const sealer = await Sealer.forExtension(ctx.host);
  const store = new TelegramStore(ctx.db, sealer);
  const wake = new WakeFlags(ctx.host);
  // The outbox's first retry delay, and how far apart sends to one chat leave (Telegram's limit: about one a second).
  const sender = new Sender(ctx, store, sealer, wake, integerSetting(ctx, 'RETRY_BASE_MS', 2_000, 10, 3_600_000), integerSetting(ctx, 'PACE_MS', 1_000, 0, 60_000));
  // Messages and button presses one chat may send per minute (ROOST_EXT_TELEGRAM_CHAT_PER_MINUTE).
  const handler = new UpdateHandler(ctx, store, sender, integerSetting(ctx, 'CHAT_PER_MINUTE', DEFAULT_INBOUND_PER_MINUTE, 1, 10_000));
  const poller = new Poller(ctx, store, handler, wake);
  sender.outbox.start();
  poller.start();
  const pruner = setInterval(() => void store.pruneSeen(new Date(Date.now() - SEEN_KEPT_MS)).catch(() => undefined), 3_600_000);
  pruner.unref();
  return { store, sender, handler, poller, pruner };
}

export function stopState(_ctx: ExtensionContext, state: State): void {
  state.poller.stop();
  state.sender.outbox.stop();
  clearInterval(state.pruner);
}
