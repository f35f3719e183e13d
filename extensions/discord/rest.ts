// Discord's REST API through @discordjs/rest (routes from discord-api-types), its base URL configurable
// (ROOST_EXT_DISCORD_API_URL, the API root without its version; tests point it at a local fake). A rate
// limit is not waited out here (rejectOnRateLimit): the call fails at once and the bridge's outbox tries
// again later, so no caller waits on Discord's Retry-After. Failures become RoostErrors naming Discord's message.
import { DiscordAPIError, HTTPError, RateLimitError, REST, type RawFile } from '@discordjs/rest';
import { RoostError } from '../../protocol/errors.js';

export const DEFAULT_API = 'https://discord.com/api';

export interface DiscordMessage {
  id: string;
  channel_id: string;
}

export interface FileUpload {
  name: string;
  contentType: string;
  data: Buffer;
}

export class DiscordRest {
  /** One client per bot token (a client holds one token); the interaction webhooks need none. */
  private readonly clients = new Map<string, REST>();

  constructor(private readonly api: string) {}

  async send<T = DiscordMessage>(method: 'POST' | 'PATCH', route: `/${string}`, body: Record<string, unknown>, options: { botToken?: string; files?: FileUpload[]; query?: Record<string, string> } = {}): Promise<T> {
    const rest = this.client(options.botToken);
    const files: RawFile[] | undefined = options.files?.map((f) => ({ name: f.name, data: f.data, contentType: f.contentType }));
    const request = { body, auth: options.botToken !== undefined, ...(files?.length ? { files } : {}), ...(options.query ? { query: new URLSearchParams(options.query) } : {}) };
    try {
      return (await (method === 'POST' ? rest.post(route, request) : rest.patch(route, request))) as T;
    } catch (err) {
      throw explain(err, method, route);
    }
  }

  async get<T>(route: `/${string}`, botToken: string): Promise<T> {
    try {
      return (await this.client(botToken).get(route)) as T;
    } catch (err) {
      throw explain(err, 'GET', route);
    }
  }

  /** The bot's client (the Gateway connection asks GET /gateway/bot through it). */
  forBot(botToken: string): REST {
    return this.client(botToken);
  }

  private client(botToken: string | undefined): REST {
    const key = botToken ?? '';
    let rest = this.clients.get(key);
    if (!rest) {
      rest = new REST({ api: this.api, version: '10', rejectOnRateLimit: () => true, retries: 1, timeout: 15_000 });
      if (botToken) rest.setToken(botToken);
      this.clients.set(key, rest);
    }
    return rest;
  }
}

/** The route as it may be logged: an interaction token is a credential. */
const shown = (route: string) => route.replace(/\/webhooks\/(\d+)\/[^/]+/, '/webhooks/$1/…');

function explain(err: unknown, method: string, route: string): RoostError {
  if (err instanceof RateLimitError) return new RoostError('RATE_LIMITED', `Discord rate-limited ${method} ${shown(route)}; retry in ${Math.ceil(err.retryAfter / 1000)} s`, { details: { retryAfter: Math.ceil(err.retryAfter / 1000) } });
  if (err instanceof DiscordAPIError) return new RoostError('UPSTREAM_ERROR', `Discord ${method} ${shown(route)} failed (${err.status}): ${err.message}`, { details: { discordStatus: err.status } });
  if (err instanceof HTTPError) return new RoostError('UPSTREAM_ERROR', `Discord ${method} ${shown(route)} failed (${err.status})`, { details: { discordStatus: err.status } });
  return new RoostError('UPSTREAM_ERROR', `Discord ${method} ${shown(route)} failed: ${(err as Error).message}`);
}
