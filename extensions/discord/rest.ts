// Discord's REST API over fetch, base URL configurable (ROOST_EXT_DISCORD_API_URL; tests point it at
// a local fake). A 429 is honoured: the request waits retry_after (body) or Retry-After (header) and is
// sent again, a few times at most; any other failure is an upstream error naming Discord's message.
import { RoostError } from '../../protocol/errors.js';

export const DEFAULT_API = 'https://discord.com/api/v10';
const MAX_RETRIES = 3;
/** Longer waits than this are not slept through: the caller gets a 429 to retry later. */
const MAX_WAIT_MS = 30_000;

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
  constructor(private readonly baseUrl: string) {}

  /** JSON, or multipart (payload_json plus files[n]) when files are given. */
  async send<T = DiscordMessage>(method: string, path: string, body: Record<string, unknown>, options: { botToken?: string; files?: FileUpload[] } = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { ...(options.botToken ? { authorization: `Bot ${options.botToken}` } : {}), ...(options.files?.length ? {} : { 'content-type': 'application/json' }) },
        body: options.files?.length ? multipart(body, options.files) : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      const parsed = parse(text);
      if (res.status === 429) {
        const seconds = Number(parsed?.retry_after ?? res.headers.get('retry-after') ?? 1);
        const waitMs = Math.ceil(Math.max(0, seconds) * 1000);
        if (attempt >= MAX_RETRIES || waitMs > MAX_WAIT_MS) {
          throw new RoostError('RATE_LIMITED', `Discord rate-limited ${method} ${path}; retry in ${Math.ceil(seconds)} s`, { details: { retryAfter: Math.ceil(seconds) } });
        }
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        continue;
      }
      if (!res.ok) throw new RoostError('UPSTREAM_ERROR', `Discord ${method} ${path.replace(/\/webhooks\/(\d+)\/[^/]+/, '/webhooks/$1/…')} failed (${res.status}): ${parsed?.message ?? text.slice(0, 200)}`);
      return (parsed ?? {}) as T;
    }
  }
}

function multipart(body: Record<string, unknown>, files: FileUpload[]): FormData {
  const form = new FormData();
  form.append('payload_json', JSON.stringify({ ...body, attachments: files.map((f, id) => ({ id, filename: f.name })) }));
  files.forEach((f, i) => form.append(`files[${i}]`, new Blob([f.data], { type: f.contentType }), f.name));
  return form;
}

function parse(text: string): Record<string, any> | undefined {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
