// A fake Discord REST API (v10) on loopback for the real @discordjs/rest client (its `api` pointed here):
// channel messages (JSON or multipart with files), message edits, interaction follow-ups and edits of the
// original response (webhooks), threads started from a message (by the bot), channel lookups, GET
// /gateway/bot (answering a loopback URL where nothing listens: a test names its fake Gateway with
// ROOST_EXT_DISCORD_GATEWAY_URL), bot-token checks, 429s with retry_after and outages (503) on demand; plus
// a fake OpenAI-compatible text-to-speech API, and the Ed25519 signing a test uses to play Discord.
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendJson, startFakeServer, type FakeServer } from './provider-http.js';

export interface DiscordCall {
  method: string;
  path: string;
  token: string | null;
  /** The JSON body, or payload_json of a multipart body. */
  json: Record<string, any>;
  files: Array<{ name: string; type: string; data: Buffer }>;
  /** The id the fake gave the message (POST). */
  id?: string;
}

export interface FakeDiscord {
  url: string;
  /** ROOST_EXT_DISCORD_API_URL (the API root without its version, as @discordjs/rest takes it). */
  apiUrl: string;
  calls: DiscordCall[];
  /** Threads: thread id → its parent channel, starter message and who started it (the bot, unless a test says). */
  threads: Map<string, { parentId: string; messageId: string; name: string; ownerId?: string }>;
  /** The next `count` requests answer 429 with this retry_after (seconds). */
  rateLimitNext(count: number, retryAfter: number): void;
  /** While true, every request answers 503 (an outage). */
  down: boolean;
  close(): Promise<void>;
}

/** The bot's user id (READY's user, a thread's owner_id). */
export const BOT_USER_ID = '110000000000000009';

export async function startFakeDiscord(botToken: string): Promise<FakeDiscord> {
  const calls: DiscordCall[] = [];
  const threads: FakeDiscord['threads'] = new Map();
  let limited = { count: 0, retryAfter: 0 };
  let nextId = 900_000_000_000_000_000n;
  const state = { down: false };
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname.replace(/^\/api\/v10/, '');
    const call = await readCall(req, path);
    calls.push(call);
    if (state.down) return sendJson(res, 503, { message: 'Service Unavailable', code: 0 });
    if (limited.count > 0) {
      limited.count--;
      return sendJson(res, 429, { message: 'You are being rate limited.', retry_after: limited.retryAfter, global: false }, { 'retry-after': String(Math.ceil(limited.retryAfter)) });
    }
    const webhook = /^\/webhooks\/\d+\/[^/]+$/.test(path);
    const original = /^\/webhooks\/\d+\/[^/]+\/messages\/(?:@|%40)original$/.test(path);
    if (!webhook && !original && call.token !== `Bot ${botToken}`) return sendJson(res, 401, { message: '401: Unauthorized', code: 0 });
    if (req.method === 'PATCH' && original) {
      call.id = String(++nextId);
      return sendJson(res, 200, { id: call.id, channel_id: null, content: call.json.content });
    }
    const starter = /^\/channels\/(\d+)\/messages\/(\d+)\/threads$/.exec(path);
    if (req.method === 'POST' && starter) {
      call.id = String(++nextId);
      threads.set(call.id, { parentId: starter[1]!, messageId: starter[2]!, name: String(call.json.name ?? '') });
      return sendJson(res, 201, { id: call.id, type: 11, parent_id: starter[1], name: call.json.name });
    }
    if (req.method === 'GET' && path === '/gateway/bot') {
      return sendJson(res, 200, { url: 'ws://127.0.0.1:9', shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 } });
    }
    const lookup = /^\/channels\/(\d+)$/.exec(path);
    if (req.method === 'GET' && lookup) {
      const thread = threads.get(lookup[1]!);
      if (thread) return sendJson(res, 200, { id: lookup[1], type: 11, guild_id: '77000000000000001', parent_id: thread.parentId, owner_id: thread.ownerId ?? BOT_USER_ID, name: thread.name });
      return sendJson(res, 200, { id: lookup[1], type: 0, guild_id: '77000000000000001', parent_id: null, name: 'general' });
    }
    const channel = /^\/channels\/(\d+)\/messages(?:\/(\d+))?$/.exec(path);
    if (req.method === 'PATCH' && channel?.[2]) return sendJson(res, 200, { id: channel[2], channel_id: channel[1], content: call.json.content });
    if (req.method === 'POST' && (channel || webhook)) {
      call.id = String(++nextId);
      return sendJson(res, 200, { id: call.id, channel_id: channel?.[1] ?? null, content: call.json.content, attachments: call.files.map((f, i) => ({ id: String(i), filename: f.name })) });
    }
    sendJson(res, 404, { message: 'Unknown route', code: 0 });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    apiUrl: `${url}/api`,
    calls,
    threads,
    rateLimitNext: (count, retryAfter) => void (limited = { count, retryAfter }),
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function readCall(req: IncomingMessage, path: string): Promise<DiscordCall> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const type = String(req.headers['content-type'] ?? '');
  const call: DiscordCall = { method: req.method ?? 'GET', path, token: req.headers.authorization ?? null, json: {}, files: [] };
  if (type.startsWith('multipart/form-data')) {
    const form = await new Request('http://fake', { method: 'POST', headers: { 'content-type': type }, body }).formData();
    call.json = JSON.parse(String(form.get('payload_json') ?? '{}'));
    for (const [name, value] of form) {
      if (name.startsWith('files[') && typeof value !== 'string') call.files.push({ name: value.name, type: value.type, data: Buffer.from(await value.arrayBuffer()) });
    }
  } else if (body.length) call.json = JSON.parse(body.toString('utf8'));
  return call;
}

export interface FakeSpeech extends FakeServer {
  /** The audio the fake answers for this input (deterministic). */
  audioFor(input: string): Buffer;
}

/** POST /v1/audio/speech {model, input, voice} → audio/mpeg bytes. */
export async function startFakeSpeech(apiKey: string): Promise<FakeSpeech> {
  const audioFor = (input: string) => Buffer.concat([Buffer.from('ID3'), createHash('sha256').update(input).digest()]);
  const server = await startFakeServer(async (request, res) => {
    if (request.headers.authorization !== `Bearer ${apiKey}`) return sendJson(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
    if (request.method !== 'POST' || request.path !== '/v1/audio/speech') return sendJson(res, 404, { error: { message: 'not found' } });
    const { model, input, voice } = request.body ?? {};
    if (!model || !input || !voice) return sendJson(res, 400, { error: { message: 'model, input and voice are required', type: 'invalid_request_error' } });
    res.writeHead(200, { 'content-type': 'audio/mpeg' });
    res.end(audioFor(String(input)));
  });
  return { ...server, audioFor };
}

export interface DiscordSigner {
  publicKey: string;
  /** The headers Discord sends with an interaction. */
  headers(body: string, timestamp?: number): Record<string, string>;
}

export function discordSigner(): DiscordSigner {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    publicKey: raw.toString('hex'),
    headers: (body, timestamp = Math.floor(Date.now() / 1000)) => ({
      'x-signature-ed25519': sign(null, Buffer.from(`${timestamp}${body}`), privateKey as KeyObject).toString('hex'),
      'x-signature-timestamp': String(timestamp),
    }),
  };
}
