// The Telegram Bot API through grammy's client, its root configurable (tests point it at a local fake).
// Every failure becomes an UPSTREAM_ERROR naming what Telegram said, so callers can retry or report it.
// The API root is the tenant's to choose, so each request may reach only what the tenant may: the one
// rule of sdk/reach.ts (reachOf). It is checked when the root is set and again as each
// connection is made (the address a name resolves to).
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Api, GrammyError, HttpError } from 'grammy';
import { RoostError } from '../../protocol/errors.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { blockedAddress, checkedLookup, type Reach } from '../../sdk/outbound.js';
import { reachOfUrl, reachPolicy } from '../../sdk/reach.js';
import { stringSetting } from '../../sdk/settings.js';
import { INSTANCE_TENANT } from '../../sdk/roles.js';
import type { Bot, TelegramStore } from './store.js';

export const DEFAULT_API_ROOT = 'https://api.telegram.org';

export interface BotAccess {
  botToken: string;
  apiRoot: string | null;
  /** Which addresses the API root may resolve to (reachOf the bot's tenant). */
  reach: Reach;
}

const apis = new Map<string, Api>();

export function apiFor(bot: BotAccess): Api {
  const root = bot.apiRoot ?? DEFAULT_API_ROOT;
  // An address written as such is never looked up, so the agent's check would not see it: checked here.
  const host = new URL(root).hostname.replace(/^\[|\]$/g, '');
  if (blockedAddress(host, bot.reach)) throw new RoostError('FORBIDDEN', `the Telegram API root ${host} is outside what this tenant's bot may reach`);
  const key = `${root}\n${bot.reach}\n${bot.botToken}`;
  let api = apis.get(key);
  if (!api) {
    const agent = root.startsWith('https:') ? new HttpsAgent({ keepAlive: true, lookup: checkedLookup(bot.reach) }) : new HttpAgent({ keepAlive: true, lookup: checkedLookup(bot.reach) });
    // A long poll holds its call up to 25 s; anything else that takes a minute has failed.
    api = new Api(bot.botToken, { apiRoot: root, timeoutSeconds: 60, baseFetchConfig: { agent } });
    apis.set(key, api);
  }
  return api;
}

/** What the tenant's API root (Telegram's when null) may reach. */
export function reachOf(ctx: ExtensionContext, tenantId: string, apiRoot: string | null): Reach {
  return reachOfUrl(reachPolicy(ctx), tenantId, new URL(apiRoot ?? DEFAULT_API_ROOT));
}

/**
 * Runs a Bot API call; Telegram's refusals, network failures and answers that are not what the Bot API
 * promises (no `result`, not JSON, or one `valid` rejects) become one clear 502 UPSTREAM_ERROR.
 */
export async function telegram<T>(what: string, call: () => Promise<T>, valid: (result: T) => boolean = () => true): Promise<T> {
  let result: T;
  try {
    result = await call();
  } catch (err) {
    if (err instanceof GrammyError) throw new RoostError('UPSTREAM_ERROR', `Telegram refused ${what}: ${err.error_code} ${err.description}`, { status: 502, details: { telegramCode: err.error_code, description: err.description } });
    if (err instanceof HttpError) throw new RoostError('UPSTREAM_ERROR', `Telegram could not be reached for ${what}: ${String((err.error as Error)?.message ?? err.message)}`, { status: 502 });
    throw err;
  }
  if (result === undefined || !valid(result)) throw new RoostError('UPSTREAM_ERROR', `Telegram's answer to ${what} is not what the Bot API promises (${result === undefined ? 'no result' : 'a result of another shape'}): is the API root a Telegram Bot API server?`, { status: 502 });
  return result;
}

/** The tenant's bot: the stored one, or for the instance's own tenant the one in the server's environment. */
export async function botOf(store: TelegramStore, ctx: ExtensionContext, tenantId: string): Promise<(BotAccess & Partial<Bot>) | undefined> {
  const stored = await store.bot(tenantId);
  if (stored) return { ...stored, reach: reachOf(ctx, tenantId, stored.apiRoot) };
  if (tenantId !== INSTANCE_TENANT) return undefined;
  const botToken = stringSetting(ctx, 'BOT_TOKEN');
  const apiRoot = stringSetting(ctx, 'API_ROOT') ?? null;
  return botToken ? { botToken, apiRoot, reach: reachOf(ctx, tenantId, apiRoot) } : undefined;
}
