// A local model runner over the Ollama HTTP API (POST /api/chat streams NDJSON), with plain fetch.
import { RoostError } from '../../protocol/errors.js';
import { abortedError, isUnreachable, unreachableError, upstreamStatusError } from './errors.js';
import { readNdjson } from './ndjson.js';
import type { CompletionRequest, CompletionResult, ModelCheck, ModelProvider, ProviderOptions } from './types.js';

export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';
export const OLLAMA_DEFAULT_MODEL = 'llama3.2';
const REACH_HINT = 'is `ollama serve` running? (set OLLAMA_HOST if it listens elsewhere)';

interface ChatChunk {
  message?: { content?: string };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: string;
}

/** OLLAMA_HOST may omit the scheme ("127.0.0.1", "localhost:8080"): like Ollama, assume http and port 11434. */
export function normalizeOllamaHost(host: string): string {
  const trimmed = host.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) return new URL(trimmed).toString().replace(/\/+$/, '');
  const url = new URL(`http://${trimmed}`);
  if (!url.port) url.port = '11434';
  return url.origin;
}

/** Ollama names a model `name:tag`; a bare name means the `latest` tag. */
export function fullModelName(name: string): string {
  return name.includes(':') ? name : `${name}:latest`;
}

export class OllamaProvider implements ModelProvider {
  readonly name = 'ollama' as const;
  readonly model: string;
  readonly baseUrl: string;

  constructor(options: ProviderOptions) {
    this.model = options.model;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const messages = request.system ? [{ role: 'system', content: request.system }, ...request.messages] : request.messages;
    const response = await this.#fetch('/api/chat', request.signal, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: this.model, messages, stream: true, options: { num_predict: request.maxTokens } }),
    });
    let text = '';
    try {
      for await (const value of readNdjson(response.body!)) {
        const chunk = value as ChatChunk;
        if (chunk.error) throw upstreamStatusError('ollama', response.status, chunk.error);
        const delta = chunk.message?.content ?? '';
        if (delta) {
          text += delta;
          request.onText?.(delta);
        }
        if (chunk.done) {
          return {
            text,
            usage: { inputTokens: chunk.prompt_eval_count ?? 0, outputTokens: chunk.eval_count ?? 0 },
            stopReason: chunk.done_reason ?? null,
          };
        }
      }
    } catch (err) {
      if (err instanceof RoostError) throw err;
      if (request.signal?.aborted) throw abortedError('ollama', request.signal);
      if (err instanceof SyntaxError) throw upstreamStatusError('ollama', response.status, `a reply line is not JSON (${err.message})`);
      throw unreachableError('ollama', this.baseUrl, err, REACH_HINT);
    }
    throw upstreamStatusError('ollama', response.status, 'the reply stream ended before the final "done" message');
  }

  async checkModel(signal?: AbortSignal): Promise<ModelCheck> {
    try {
      const response = await this.#fetch('/api/tags', signal, { method: 'GET' });
      const body = (await response.json()) as { models?: Array<{ name?: string; model?: string }> };
      const wanted = fullModelName(this.model);
      const installed = (body.models ?? []).some((m) => fullModelName(m.name ?? m.model ?? '') === wanted);
      return installed
        ? { reachable: true, modelAvailable: true, detail: `model ${wanted} is installed` }
        : { reachable: true, modelAvailable: false, detail: `model ${wanted} is not installed; run: ollama pull ${this.model}` };
    } catch (err) {
      return { reachable: !isUnreachable(err), modelAvailable: null, detail: err instanceof Error ? err.message : String(err) };
    }
  }

  /** fetch with Ollama's error shape ({"error": "..."}) turned into RoostErrors. */
  async #fetch(path: string, signal: AbortSignal | undefined, init: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { ...init, signal });
    } catch (err) {
      if (signal?.aborted) throw abortedError('ollama', signal);
      throw unreachableError('ollama', this.baseUrl, err, REACH_HINT);
    }
    if (response.ok && response.body) return response;
    const raw = await response.text().catch(() => '');
    let detail = raw || response.statusText;
    try {
      const parsed = JSON.parse(raw) as { error?: unknown };
      if (typeof parsed.error === 'string') detail = parsed.error;
    } catch {
      // not JSON: keep the raw text as the detail
    }
    if (response.status === 404 && path === '/api/chat') detail += `; run: ollama pull ${this.model}`;
    throw upstreamStatusError('ollama', response.status, detail);
  }
}
