// What the Slack bridge holds while it runs: its tables, the sealed configurations, the Web API client
// (base URL from ROOST_EXT_SLACK_API_URL, so tests point it at a local fake), the outbound pacer.
import { LogLevel, WebClient, type ChatPostMessageArguments, type ChatUpdateArguments } from '@slack/web-api';
import { RoostError } from '../../protocol/errors.js';
import { SealedConfigs, type BridgeConfig } from '../_shared/bridge/configs.js';
import { ChannelPacer } from '../_shared/bridge/pacer.js';
import { KeyedSerial } from '../_shared/bridge/serial.js';
import { BridgeStore } from '../_shared/bridge/store.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { stringSetting } from '../_shared/settings.js';

export interface SlackSettings {
  teamId: string;
  botUserId: string;
  defaultAgentId: string | null;
  /** Slack channel id → agent id. */
  channels: Record<string, string>;
}

export interface SlackSecrets extends Record<string, string> {
  botToken: string;
  signingSecret: string;
}

export type SlackConfig = BridgeConfig<SlackSettings, SlackSecrets>;

/** A message as this bridge writes one: text (the notification fallback) and optional Block Kit blocks. */
export interface SlackMessage {
  text: string;
  blocks?: Array<Record<string, unknown>>;
}

const DEFAULT_API = 'https://slack.com/api/';
/** A failed call is retried briefly only: the caller (a chat turn, a notification delivery) retries on its own terms. */
const RETRIES = { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2000 };
/** Slack allows about one message per second per channel. */
const PACE_MS = 1000;

export class SlackBridge {
  readonly store: BridgeStore;
  readonly configs: SealedConfigs<SlackSettings, SlackSecrets>;
  readonly pacer = new ChannelPacer(PACE_MS);
  readonly serial = new KeyedSerial();

  constructor(readonly ctx: ExtensionContext) {
    this.store = new BridgeStore(ctx.db, 'slack');
    this.configs = new SealedConfigs(ctx.host, this.store);
  }

  async client(token: string): Promise<WebClient> {
    return new WebClient(token, { slackApiUrl: stringSetting(this.ctx, 'API_URL') ?? DEFAULT_API, logLevel: LogLevel.ERROR, retryConfig: RETRIES, timeout: 15_000 });
  }

  /** Posts (paced per channel) and answers the message's externalId: "channel:ts". */
  async post(token: string, args: SlackMessage & { channel: string; thread_ts?: string }): Promise<string> {
    await this.pacer.turn(args.channel);
    const reply = await upstream('chat.postMessage', (await this.client(token)).chat.postMessage(args as ChatPostMessageArguments));
    return `${reply.channel ?? args.channel}:${reply.ts}`;
  }

  async update(token: string, externalId: string, args: SlackMessage): Promise<void> {
    const [channel, ts] = splitExternalId(externalId);
    await upstream('chat.update', (await this.client(token)).chat.update({ ...args, channel, ts } as ChatUpdateArguments));
  }

  /** Whose bot token is this: the workspace (team) and the bot's own user id. */
  async identify(token: string): Promise<{ teamId: string; botUserId: string }> {
    const reply = await upstream('auth.test', (await this.client(token)).auth.test(), 'VALIDATION_ERROR');
    return { teamId: String(reply.team_id), botUserId: String(reply.user_id) };
  }
}

export function splitExternalId(externalId: string): [string, string] {
  const at = externalId.indexOf(':');
  if (at <= 0) throw new RoostError('VALIDATION_ERROR', `${externalId} is not a Slack message id (channel:ts)`);
  return [externalId.slice(0, at), externalId.slice(at + 1)];
}

/** A Slack API failure is the upstream's: 502, with Slack's own error code in the sentence. */
async function upstream<T>(method: string, call: Promise<T>, code = 'UPSTREAM_ERROR'): Promise<T> {
  try {
    return await call;
  } catch (err) {
    const slackError = (err as { data?: { error?: string } }).data?.error;
    throw new RoostError(code, `Slack ${method} failed: ${slackError ?? (err as Error).message}`, { status: code === 'UPSTREAM_ERROR' ? 502 : 400 });
  }
}
