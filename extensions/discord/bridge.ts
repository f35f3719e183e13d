// What the Discord bridge holds while it runs (setup's state, handed to every handler): its tables, the
// sealed configurations, the REST client, the rate limits, the outbox every message goes through, the
// speech service and its voice cache, and the bots' Gateway connections.
import { Routes } from 'discord-api-types/v10';
import { RoostError } from '../../protocol/errors.js';
import { SealedConfigs, type BridgeConfig } from '../../sdk/bridge/configs.js';
import { DEFAULT_INBOUND_PER_MINUTE, InboundLimit } from '../../sdk/bridge/limits.js';
import { BridgeOutbox, type OutboxRow, type OutboxStatus } from '../../sdk/bridge/outbox.js';
import { KeyedSerial } from '../../sdk/bridge/serial.js';
import { BridgeStore, type PromptMessage } from '../../sdk/bridge/store.js';
import { WakeFlags } from '../../sdk/bridge/wake.js';
import type { ExtensionContext } from '../../sdk/extension.js';
import { reachPolicy, type ReachPolicy } from '../../sdk/reach.js';
import { integerSetting, numberSetting, stringSetting } from '../../sdk/settings.js';
import { ChannelDirectory } from './channels.js';
import { Gateways } from './gateway.js';
import { DEFAULT_API, DiscordRest, type DiscordMessage, type FileUpload } from './rest.js';
import { Speech } from './speech.js';
import { VoiceCache } from './voice-cache.js';

export interface DiscordSettings {
  applicationId: string;
  publicKey: string;
  defaultAgentId: string | null;
  /** Channel (or thread) id → agent id. */
  channels: Record<string, string>;
  voice: { channels: string[]; voice: string; model: string };
}

export interface DiscordSecrets extends Record<string, string> {
  botToken: string;
}

export type DiscordConfig = BridgeConfig<DiscordSettings, DiscordSecrets>;

/** A file in an outbox row (base64: the row is JSON). */
export interface QueuedFile {
  name: string;
  contentType: string;
  base64: string;
}

/** The buttons a message carries, remembered once it is sent (components.ts answers their presses). */
export type QueuedPrompt = Omit<PromptMessage, 'externalId' | 'tenantId' | 'closedAt'>;

/**
 * What an outbox row asks: a message in a channel or thread (as the bot), an interaction follow-up (its
 * token is valid 15 minutes; after that, or when it fails for good, the bot posts in the channel
 * instead), or an edit of a message.
 */
export type DiscordOp =
  | { kind: 'message'; channelId: string; body: Record<string, unknown>; files?: QueuedFile[]; prompt?: QueuedPrompt; sealedToken?: string }
  | { kind: 'followUp'; channelId: string; interactionToken: string; body: Record<string, unknown>; files?: QueuedFile[]; prompt?: QueuedPrompt }
  | { kind: 'edit'; externalId: string; body: Record<string, unknown>; closePrompt?: boolean; sealedToken?: string };

/** Messages to one channel leave at least this far apart (Discord allows about five per five seconds). */
const PACE_MS = 250;
const VOICE_CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** An interaction token is valid 15 minutes; a follow-up later than this goes to the channel instead. */
const INTERACTION_TOKEN_MS = 14 * 60_000;

export class DiscordBridge {
  readonly store: BridgeStore;
  readonly configs: SealedConfigs<DiscordSettings, DiscordSecrets>;
  /** Commands and presses per user, and per channel or thread, a minute (ROOST_EXT_DISCORD_INBOUND_PER_MINUTE). */
  readonly inbound: InboundLimit;
  readonly serial = new KeyedSerial();
  readonly speech: Speech;
  readonly outbox: BridgeOutbox<DiscordOp>;
  readonly rest: DiscordRest;
  /** Why the server should start the extension with it (the outbox's messages, the bots' Gateway connections). */
  readonly wake: WakeFlags;
  readonly channels: ChannelDirectory;
  readonly gateways: Gateways;

  private constructor(
    readonly ctx: ExtensionContext,
    voiceCacheMaxBytes: number,
    /** Where an image URL an agent names may be fetched from (sdk/reach.ts). */
    readonly reach: ReachPolicy,
  ) {
    this.store = new BridgeStore(ctx.db, 'discord');
    this.configs = new SealedConfigs(ctx.host, this.store);
    this.speech = new Speech({ url: stringSetting(ctx, 'TTS_URL'), key: stringSetting(ctx, 'TTS_API_KEY') }, new VoiceCache(ctx.db, voiceCacheMaxBytes));
    this.rest = new DiscordRest((stringSetting(ctx, 'API_URL') ?? DEFAULT_API).replace(/\/+$/, ''));
    this.inbound = new InboundLimit(integerSetting(ctx, 'INBOUND_PER_MINUTE', DEFAULT_INBOUND_PER_MINUTE, 1, 10_000));
    const retryBaseMs = integerSetting(ctx, 'RETRY_BASE_MS', 2_000, 10, 3_600_000);
    this.wake = new WakeFlags(ctx.host);
    this.outbox = new BridgeOutbox(ctx, ctx.db, this.wake, (row) => this.send(row), { retryBaseMs, maxAttempts: 12, paceMs: PACE_MS });
    this.channels = new ChannelDirectory(this.rest);
    this.gateways = new Gateways(this, stringSetting(ctx, 'GATEWAY_URL'));
  }

  /** The instance's settings: ROOST_EXT_DISCORD_* (sdk/settings.ts). Starts the outbox and the Gateway connections. */
  static async start(ctx: ExtensionContext): Promise<DiscordBridge> {
    const cap = numberSetting(ctx, 'VOICE_CACHE_MAX_BYTES', VOICE_CACHE_MAX_BYTES, 1, 2 ** 40);
    const bridge = new DiscordBridge(ctx, cap, reachPolicy(ctx));
    bridge.outbox.start();
    await bridge.gateways.start();
    return bridge;
  }

  async stop(): Promise<void> {
    await this.gateways.stop();
    this.outbox.stop();
  }

  async queue(tenantId: string, op: DiscordOp, options: { waitMs: number; key?: string; keyWindowMs?: number } = { waitMs: 0 }): Promise<OutboxStatus> {
    const channel = op.kind === 'edit' ? op.externalId.split(':')[0]! : op.channelId;
    return this.outbox.submit(tenantId, channel, op, options);
  }

  /**
   * The reply's audio when voice is on for the channel (a thread: or for its parent channel), from the
   * voice cache when it was spoken before.
   */
  async voiceFor(config: DiscordConfig, channelIds: string[], text: string): Promise<QueuedFile[] | undefined> {
    const voice = config.settings.voice;
    if (!channelIds.some((id) => voice.channels.includes(id)) || text.trim() === '') return undefined;
    const spoken = await this.speech.speak(config.tenantId, text, voice.voice, voice.model);
    return [{ name: 'reply.mp3', contentType: spoken.contentType, base64: spoken.audio.toString('base64') }];
  }

  botToken(config: DiscordConfig | undefined): string {
    const token = config?.secrets.botToken;
    if (!token) throw new RoostError('VALIDATION_ERROR', 'Discord has no bot token for this tenant: PUT /api/bridges/discord {botToken}');
    return token;
  }

  /** Sends one outbox row; answers "<channel id>:<message id>". */
  private async send(row: OutboxRow<DiscordOp>): Promise<string> {
    const op = row.op;
    const config = await this.configs.get(row.tenantId);
    const tokenOf = async (sealed?: string) => (sealed ? this.configs.openFor(row.tenantId, sealed) : this.botToken(config));
    if (op.kind === 'edit') {
      const [channelId, messageId] = op.externalId.split(':');
      if (!channelId || !messageId) throw new RoostError('VALIDATION_ERROR', `${op.externalId} is not a Discord message id (channel:message)`);
      await this.rest.send('PATCH', Routes.channelMessage(channelId, messageId), op.body, { botToken: await tokenOf(op.sealedToken) });
      if (op.closePrompt) await this.store.closePrompt(op.externalId);
      return op.externalId;
    }
    const files = op.files?.map((f): FileUpload => ({ name: f.name, contentType: f.contentType, data: Buffer.from(f.base64, 'base64') }));
    let message: DiscordMessage;
    const fresh = op.kind === 'followUp' && Date.now() - Date.parse(await this.createdAt(row.id)) < INTERACTION_TOKEN_MS;
    if (op.kind === 'followUp' && fresh && config) {
      message = await this.rest.send('POST', Routes.webhook(config.settings.applicationId, op.interactionToken), op.body, { query: { wait: 'true' }, ...(files ? { files } : {}) });
    } else {
      message = await this.rest.send('POST', Routes.channelMessages(op.channelId), op.body, { botToken: await tokenOf(op.kind === 'message' ? op.sealedToken : undefined), ...(files ? { files } : {}) });
    }
    const externalId = `${op.channelId}:${message.id}`;
    // The message is out: a failure to remember what it asks must not send it again.
    if (op.prompt) await this.store.recordPrompt({ ...op.prompt, externalId, tenantId: row.tenantId }).catch((err: Error) => this.ctx.host.log('error', `discord: recording the prompt of ${externalId} failed: ${err.message}`));
    return externalId;
  }

  private async createdAt(rowId: string): Promise<string> {
    return String((await this.ctx.db('outbox').where({ id: rowId }).first('created_at'))?.created_at ?? new Date(0).toISOString());
  }
}
