// A real server with the fake Anthropic API, the fake Discord REST API and the fake text-to-speech API,
// the fx-caller fixture (the bridge's internal routes), and helpers that play Discord sending interactions.
import { FIXTURES } from '../agents/support.js';
import { discordSigner, startFakeDiscord, startFakeSpeech, type DiscordSigner, type FakeDiscord, type FakeSpeech } from '../fakes/discord.js';
import { startHarness, type Harness } from '../sessions/harness.js';

export const APP_ID = '110000000000000001';
export const BOT_TOKEN = 'discord-bot-token.for-tests_0123456789';
export const TTS_KEY = 'sk-tts-test';
export const CHANNEL = '220000000000000001';
export const VOICE_CHANNEL = '220000000000000002';

export interface DiscordHarness extends Harness {
  discord: FakeDiscord;
  speech: FakeSpeech;
  signer: DiscordSigner;
  /** Posts a signed interaction (or raw text) to /discord/interactions. */
  interact(body: Record<string, unknown> | string, options?: { timestamp?: number; signer?: DiscordSigner; headers?: Record<string, string> }): Promise<{ status: number; body: any; text: string }>;
  configure(body: Record<string, unknown>, key?: string): Promise<{ status: number; body: any; text: string }>;
  /** The follow-ups sent for the interaction with this token. */
  followUps(token: string): FakeDiscord['calls'];
}

let interactions = 0;

export async function startDiscordHarness(env: Record<string, string> = {}): Promise<DiscordHarness> {
  const discord = await startFakeDiscord(BOT_TOKEN);
  const speech = await startFakeSpeech(TTS_KEY);
  const signer = discordSigner();
  const h = await startHarness({
    env: {
      ROOST_EXTENSION_DIRS: FIXTURES,
      ROOST_EXT_DISCORD_API_URL: discord.apiUrl,
      ROOST_EXT_DISCORD_TTS_URL: speech.url,
      ROOST_EXT_DISCORD_TTS_API_KEY: TTS_KEY,
      ROOST_EXT_DISCORD_ALLOW_PRIVATE_URLS: '1',
      ROOST_EXT_DISCORD_ALLOW_LOOPBACK: '1',
      ROOST_EXT_DISCORD_RETRY_BASE_MS: '200',
      ROOST_EXT_NOTIFICATIONS_RETRY_BASE_MS: '200',
      ROOST_EXT_NOTIFICATIONS_MIN_TIMEOUT_SECONDS: '1',
      ...env,
    },
  });
  const close = h.close;
  return Object.assign(h, {
    discord,
    speech,
    signer,
    async interact(body: Record<string, unknown> | string, options: { timestamp?: number; signer?: DiscordSigner; headers?: Record<string, string> } = {}) {
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      const headers = { ...(options.signer ?? signer).headers(raw, options.timestamp), ...options.headers };
      return h.server.api('POST', '/discord/interactions', { raw, headers });
    },
    configure: (body: Record<string, unknown>, key?: string) => h.server.api('PUT', '/api/bridges/discord', { body, key }),
    followUps: (token: string) => discord.calls.filter((c) => c.method === 'POST' && c.path === `/webhooks/${APP_ID}/${token}`),
    async close() {
      await close();
      await discord.close();
      await speech.close();
    },
  });
}

/** A slash command as Discord sends it. */
export function slash(name: string, options: Record<string, string> = {}, channelId = CHANNEL): Record<string, unknown> & { token: string } {
  const n = ++interactions;
  return {
    id: `33000000000000${String(n).padStart(4, '0')}`,
    application_id: APP_ID,
    type: 2,
    token: `interaction-token-${n}-${Date.now()}`,
    channel_id: channelId,
    data: { name, options: Object.entries(options).map(([key, value]) => ({ name: key, type: 3, value })) },
    member: { user: { id: '44000000000000001', username: 'alice' } },
  };
}

/** A button press on a message. */
export function press(messageId: string, customId: string, channelId = CHANNEL): Record<string, unknown> {
  const n = ++interactions;
  return { id: `35000000000000${String(n).padStart(4, '0')}`, application_id: APP_ID, type: 3, token: `press-token-${n}`, channel_id: channelId, message: { id: messageId }, data: { custom_id: customId, component_type: 2 }, member: { user: { id: '44000000000000001', username: 'alice' } } };
}
