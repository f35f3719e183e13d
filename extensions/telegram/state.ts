// The bridge's parts, built once at start-up and shared by its routes.
import type { ExtensionContext } from '../_shared/extension.js';
import { Sealer } from '../_shared/sealed.js';
import { integerSetting } from '../_shared/settings.js';
import { Poller } from './poller.js';
import { TelegramStore } from './store.js';
import { UpdateHandler } from './updates.js';

/** Messages and button presses one chat may send per minute (ROOST_EXT_TELEGRAM_CHAT_PER_MINUTE). */
const DEFAULT_PER_MINUTE = 20;
/** Update ids are remembered this long; Telegram gives up redelivering long before. */
const SEEN_KEPT_MS = 7 * 24 * 3_600_000;

export interface State {
  store: TelegramStore;
  handler: UpdateHandler;
  poller: Poller;
}

let state: State | undefined;
let pruner: NodeJS.Timeout | undefined;

export async function startState(ctx: ExtensionContext): Promise<void> {
  const store = new TelegramStore(ctx.db, await Sealer.forExtension(ctx.host));
  const handler = new UpdateHandler(ctx, store, integerSetting(ctx, 'CHAT_PER_MINUTE', DEFAULT_PER_MINUTE, 1, 10_000));
  const poller = new Poller(ctx, store, handler);
  state = { store, handler, poller };
  poller.start();
  pruner = setInterval(() => void store.pruneSeen(new Date(Date.now() - SEEN_KEPT_MS)).catch(() => undefined), 3_600_000);
  pruner.unref();
}

export function stopState(): void {
  state?.poller.stop();
  if (pruner) clearInterval(pruner);
}

export function getState(): State {
  if (!state) throw new Error('the telegram extension has not started');
  return state;
}
