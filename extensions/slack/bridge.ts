// What the Slack bridge holds while it runs: its tables, the sealed configurations, the Web API client
// (base URL from ROOST_EXT_SLACK_API_URL, so tests point it at a local fake), the rate limits and the
// outbox every message it sends goes through (sdk/bridge/outbox.ts).
import { LogLevel, WebClient, type ChatPostMessageArguments, type ChatUpdateArguments } from '@slack/web-api';
import { RoostError } from '../../protocol/errors.js';
import { SealedConfigs, type BridgeConfig } from '../../sdk/bridge/configs.js';
import { DEFAULT_INBOUND_PER_MINUTE, InboundLimit } from '../../sdk/bridge/limits.js';
import { BridgeOutbox, type OutboxRow, type OutboxStatus } from '../../sdk/bridge/outbox.js';
import { KeyedSerial } from '../../sdk/bridge/serial.js';
import { BridgeStore, type PromptMessage } from '../../sdk/bridge/store.js';
import { WakeFlags } from '../../sdk/bridge/wake.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { integerSetting, stringSetting } from '../../sdk/settings.js';

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

/** What an outbox row asks: post a message (recording the question or approval it carries), or update one. */
export type SlackOp =
  | { kind: 'post'; channel: string; threadTs?: string; message: SlackMessage; prompt?: Omit<PromptMessage, 'externalId' | 'tenantId' | 'closedAt'>; sealedToken?: string }
  | { kind: 'update'; externalId: string; message: SlackMessage; closePrompt?: boolean; sealedToken?: string };

const DEFAULT_API = 'https://slack.com/api/';
/**
 * A failed call is retried briefly only, and a rate-limited one not at all: the outbox retries on its
 * own terms, so no call waits out a long Retry-After.
 */
const RETRIES = { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2000 };
/** Slack allows about one message per second per channel. */
const PACE_MS = 1000;

export class SlackBridge {
  readonly store: BridgeStore;
  readonly configs: SealedConfigs<SlackSettings, SlackSecrets>;
  /** Messages from one user, and in one thread, per minute (ROOST_EXT_SLACK_INBOUND_PER_MINUTE). */
  readonly inbound: InboundLimit;
  /** url_verification names no workspace, so it is checked against every tenant's secret: few a minute. */
  readonly handshakes = new InboundLimit(30);
  readonly serial = new KeyedSerial();
  readonly outbox: BridgeOutbox<SlackOp>;

  constructor(readonly ctx: ExtensionContext) {
    this.store = new BridgeStore(ctx.db, 'slack');
    this.configs = new SealedConfigs(ctx.host, this.store);
    this.inbound = new InboundLimit(integerSetting(ctx, 'INBOUND_PER_MINUTE', DEFAULT_INBOUND_PER_MINUTE, 1, 10_000));
    const retryBaseMs = integerSetting(ctx, 'RETRY_BASE_MS', 2_000, 10, 3_600_000);
    this.outbox = new BridgeOutbox(ctx, ctx.db, new WakeFlags(ctx.host), (row) => this.send(row), { retryBaseMs, maxAttempts: 12, paceMs: PACE_MS });
  }

  client(token: string): WebClient {
    return new WebClient(token, { slackApiUrl: stringSetting(this.ctx, 'API_URL') ?? DEFAULT_API, logLevel: LogLevel.ERROR, retryConfig: RETRIES, rejectRateLimitedCalls: true, timeout: 15_000 });
  }

  /** Queues a post (or update) for the tenant; answers once sent or after `waitMs`, whichever is first. */
  async queue(tenantId: string, op: SlackOp, options: { waitMs: number; key?: string; keyWindowMs?: number } = { waitMs: 0 }): Promise<OutboxStatus> {
    const channel = op.kind === 'post' ? op.channel : splitExternalId(op.externalId)[0];
    return this.outbox.submit(tenantId, channel, op, options);
  }

  /** Whose bot token is this: the workspace (team) and the bot's own user id. */
  async identify(token: string): Promise<{ teamId: string; botUserId: string }> {
    const reply = await upstream('auth.test', this.client(token).auth.test(), 'VALIDATION_ERROR');
    return { teamId: String(reply.team_id), botUserId: String(reply.user_id) };
  }

  /** Sends one outbox row (the outbox paces them per channel) and answers the message's externalId: "channel:ts". */
  private async send(row: OutboxRow<SlackOp>): Promise<string> {
    const op = row.op;
    const token = op.sealedToken ? await this.configs.openFor(row.tenantId, op.sealedToken) : (await this.configs.get(row.tenantId))?.secrets.botToken;
    if (!token) throw new RoostError('VALIDATION_ERROR', 'Slack is not configured for this tenant (PUT /api/bridges/slack)');
    if (op.kind === 'update') {
      const [channel, ts] = splitExternalId(op.externalId);
      await upstream('chat.update', this.client(token).chat.update({ ...op.message, channel, ts } as ChatUpdateArguments));
      if (op.closePrompt) await this.store.closePrompt(op.externalId);
      return op.externalId;
    }
    const args = { ...op.message, channel: op.channel, ...(op.threadTs ? { thread_ts: op.threadTs } : {}) };
    const reply = await upstream('chat.postMessage', this.client(token).chat.postMessage(args as ChatPostMessageArguments));
    const externalId = `${reply.channel ?? op.channel}:${reply.ts}`;
    // The message is out: a failure to remember what it asks must not send it again.
    if (op.prompt) await this.store.recordPrompt({ ...op.prompt, externalId, tenantId: row.tenantId }).catch((err: Error) => this.ctx.host.log('error', `slack: recording the prompt of ${externalId} failed: ${err.message}`));
    return externalId;
  }
}

export function splitExternalId(externalId: string): [string, string] {
  const at = externalId.indexOf(':');
  if (at <= 0) throw new RoostError('VALIDATION_ERROR', `${externalId} is not a Slack message id (channel:ts)`);
  return [externalId.slice(0, at), externalId.slice(at + 1)];
}

/** A section block with the text, the way every message here is shown. */
export const section = (text: string): Record<string, unknown> => ({ type: 'section', text: { type: 'mrkdwn', text } });

/** A Slack API failure is the upstream's: 502, with Slack's own error code in the sentence. */
async function upstream<T>(method: string, call: Promise<T>, code = 'UPSTREAM_ERROR'): Promise<T> {
  try {
    return await call;
  } catch (err) {
    const slackError = (err as { data?: { error?: string } }).data?.error;
    throw new RoostError(code, `Slack ${method} failed: ${slackError ?? (err as Error).message}`, { status: code === 'UPSTREAM_ERROR' ? 502 : 400 });
  }
}
