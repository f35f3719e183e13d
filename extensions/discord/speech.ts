// Replies turned into speech through an OpenAI-compatible text-to-speech API
// (POST {ROOST_EXT_DISCORD_TTS_URL}/v1/audio/speech {model, input, voice}), through the voice cache: the same
// (model, voice, text) is asked for once, and concurrent asks for it share one request.
import { RoostError } from '../../protocol/errors.js';
import { voiceKey, type CachedAudio, type VoiceCache } from './voice-cache.js';

/** The speech API takes at most this many characters. */
const MAX_INPUT = 4096;

export class Speech {
  private readonly inFlight = new Map<string, Promise<CachedAudio>>();

  constructor(
    private readonly api: { url: string | undefined; key: string | undefined },
    readonly cache: VoiceCache,
  ) {}

  async speak(tenantId: string, text: string, voice: string, model: string): Promise<CachedAudio & { cached: boolean }> {
    const input = text.slice(0, MAX_INPUT);
    const key = voiceKey(model, voice, input);
    const hit = await this.cache.get(tenantId, key);
    if (hit) return { ...hit, cached: true };
    const flightKey = `${tenantId}:${key}`;
    let flight = this.inFlight.get(flightKey);
    if (!flight) {
      flight = this.synthesise(input, voice, model).then(async (audio) => {
        await this.cache.put(tenantId, key, audio);
        return audio;
      });
      this.inFlight.set(flightKey, flight);
      void flight.finally(() => this.inFlight.delete(flightKey)).catch(() => undefined);
    }
    return { ...(await flight), cached: false };
  }

  private async synthesise(input: string, voice: string, model: string): Promise<CachedAudio> {
    const { url: base, key } = this.api;
    if (!base) throw new RoostError('VALIDATION_ERROR', 'voice replies need a text-to-speech API: set ROOST_EXT_DISCORD_TTS_URL (and ROOST_EXT_DISCORD_TTS_API_KEY)');
    const res = await fetch(`${base.replace(/\/+$/, '')}/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ model, input, voice, response_format: 'mp3' }),
      signal: AbortSignal.timeout(60_000),
    });
    if (!res.ok) throw new RoostError('UPSTREAM_ERROR', `the text-to-speech API answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    return { audio: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') ?? 'audio/mpeg' };
  }
}
