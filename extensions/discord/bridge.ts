// What the Discord bridge holds while it runs: its tables, the sealed configurations, the REST client,
// the outbound pacer, the speech service and its voice cache.
import { RoostError } from '../../protocol/errors.js';
import { SealedConfigs, type BridgeConfig } from '../_shared/bridge/configs.js';
import { ChannelPacer } from '../_shared/bridge/pacer.js';
import { KeyedSerial } from '../_shared/bridge/serial.js';
import { BridgeStore } from '../_shared/bridge/store.js';
import type { ExtensionContext } from '../_shared/extension.js';
import { DEFAULT_API, DiscordRest, type DiscordMessage, type FileUpload } from './rest.js';
import { Speech } from './speech.js';
import { VoiceCache } from './voice-cache.js';
import { numberSetting, stringSetting } from '../_shared/settings.js';

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

/** Messages to one channel leave at least this far apart (Discord allows about five per five seconds). */
const PACE_MS = 250;
const VOICE_CACHE_MAX_BYTES = 64 * 1024 * 1024;

export class DiscordBridge {
  readonly store: BridgeStore;
  readonly configs: SealedConfigs<DiscordSettings, DiscordSecrets>;
  readonly pacer = new ChannelPacer(PACE_MS);
  readonly serial = new KeyedSerial();
  readonly speech: Speech;
  private client: Promise<DiscordRest> | undefined;

  private constructor(
    readonly ctx: ExtensionContext,
    voiceCacheMaxBytes: number,
    /** ROOST_EXT_DISCORD_ALLOW_PRIVATE_URLS=1: images may be fetched from private addresses (tests, closed networks). */
    readonly allowPrivateUrls: boolean,
  ) {
    this.store = new BridgeStore(ctx.db, 'discord');
    this.configs = new SealedConfigs(ctx.host, this.store);
    this.speech = new Speech({ url: stringSetting(ctx, 'TTS_URL'), key: stringSetting(ctx, 'TTS_API_KEY') }, new VoiceCache(ctx.db, voiceCacheMaxBytes));
  }

  /** The instance's settings: ROOST_EXT_DISCORD_* (extensions/_shared/settings.ts). */
  static async create(ctx: ExtensionContext): Promise<DiscordBridge> {
    const cap = numberSetting(ctx, 'VOICE_CACHE_MAX_BYTES', VOICE_CACHE_MAX_BYTES, 1, 2 ** 40);
    return new DiscordBridge(ctx, cap, stringSetting(ctx, 'ALLOW_PRIVATE_URLS') === '1');
  }

  rest(): Promise<DiscordRest> {
    this.client ??= Promise.resolve(new DiscordRest((stringSetting(this.ctx, 'API_URL') ?? DEFAULT_API).replace(/\/+$/, '')));
    return this.client;
  }

  async channelMessage(botToken: string, channelId: string, body: Record<string, unknown>, files?: FileUpload[]): Promise<DiscordMessage> {
    await this.pacer.turn(channelId);
    return (await this.rest()).send('POST', `/channels/${channelId}/messages`, body, { botToken, ...(files ? { files } : {}) });
  }

  async editMessage(botToken: string, externalId: string, body: Record<string, unknown>): Promise<void> {
    const [channelId, messageId] = externalId.split(':');
    if (!channelId || !messageId) throw new RoostError('VALIDATION_ERROR', `${externalId} is not a Discord message id (channel:message)`);
    await (await this.rest()).send('PATCH', `/channels/${channelId}/messages/${messageId}`, body, { botToken });
  }

  /** A follow-up to an interaction (its token is valid 15 minutes): needs no bot token. */
  async followUp(config: DiscordConfig, interactionToken: string, channelId: string, body: Record<string, unknown>, files?: FileUpload[]): Promise<DiscordMessage> {
    await this.pacer.turn(channelId);
    return (await this.rest()).send('POST', `/webhooks/${config.settings.applicationId}/${interactionToken}?wait=true`, body, files ? { files } : {});
  }

  /** The reply's audio when voice is on for the channel (from the voice cache when it was spoken before). */
  async voiceFor(config: DiscordConfig, channelId: string, text: string): Promise<FileUpload[] | undefined> {
    const voice = config.settings.voice;
    if (!voice.channels.includes(channelId) || text.trim() === '') return undefined;
    const spoken = await this.speech.speak(config.tenantId, text, voice.voice, voice.model);
    return [{ name: 'reply.mp3', contentType: spoken.contentType, data: spoken.audio }];
  }

  botToken(config: DiscordConfig | undefined): string {
    const token = config?.secrets.botToken;
    if (!token) throw new RoostError('VALIDATION_ERROR', 'Discord has no bot token for this tenant: PUT /api/bridges/discord {botToken}');
    return token;
  }
}
