// The Telegram Bot API through grammy's client, its root configurable (tests point it at a local fake).
// Every failure becomes an UPSTREAM_ERROR naming what Telegram said, so callers can retry or report it.
import { Api, GrammyError, HttpError } from 'grammy';
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { stringSetting } from '../_shared/settings.js';
import { INSTANCE_TENANT } from '../_shared/roles.js';
import type { Bot, TelegramStore } from './store.js';

export const DEFAULT_API_ROOT = 'https://api.telegram.org';

export interface BotAccess {
  botToken: string;
  apiRoot: string | null;
}

const apis = new Map<string, Api>();

export function apiFor(bot: BotAccess): Api {
  const root = bot.apiRoot ?? DEFAULT_API_ROOT;
  const key = `${root}\n${bot.botToken}`;
  let api = apis.get(key);
  if (!api) {
    // A long poll holds its call up to 25 s; anything else that takes a minute has failed.
    api = new Api(bot.botToken, { apiRoot: root, timeoutSeconds: 60 });
    apis.set(key, api);
  }
  return api;
}

/** Runs a Bot API call; Telegram's refusals and network failures become one clear error. */
export async function telegram<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof GrammyError) throw new RoostError('UPSTREAM_ERROR', `Telegram refused ${what}: ${err.error_code} ${err.description}`, { status: 502 });
    if (err instanceof HttpError) throw new RoostError('UPSTREAM_ERROR', `Telegram could not be reached for ${what}: ${String((err.error as Error)?.message ?? err.message)}`, { status: 502 });
    throw err;
  }
}

/** The tenant's bot: the stored one, or for the instance's own tenant the one in the server's environment. */
export async function botOf(store: TelegramStore, ctx: ExtensionContext, tenantId: string): Promise<(BotAccess & Partial<Bot>) | undefined> {
  const stored = await store.bot(tenantId);
  if (stored) return stored;
  if (tenantId !== INSTANCE_TENANT) return undefined;
  const botToken = stringSetting(ctx, 'BOT_TOKEN');
  return botToken ? { botToken, apiRoot: stringSetting(ctx, 'API_ROOT') ?? null } : undefined;
}
