// A small client for the Ollama HTTP API. Failures become UPSTREAM_ERROR with what Ollama said.
import { RoostError } from '../../protocol/errors.js';

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
const TIMEOUT_MS = 10_000;

export class OllamaClient {
  constructor(readonly host: string) {}

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.fetch(method, path, body, AbortSignal.timeout(TIMEOUT_MS));
    const text = await res.text();
    if (!res.ok) throw upstream(res.status, text);
    return (text === '' ? {} : JSON.parse(text)) as T;
  }

  /** Streams NDJSON lines of a long call (a pull), one object at a time. */
  async *stream(path: string, body: unknown, signal: AbortSignal): AsyncGenerator<Record<string, unknown>> {
    const res = await this.fetch('POST', path, body, signal);
    if (!res.ok || !res.body) throw upstream(res.status, await res.text());
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) yield JSON.parse(line) as Record<string, unknown>;
    }
    if (pending.trim()) yield JSON.parse(pending) as Record<string, unknown>;
  }

  private async fetch(method: string, path: string, body: unknown, signal: AbortSignal): Promise<Response> {
    try {
      return await fetch(`${this.host}${path}`, {
        method,
        signal,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new RoostError('UPSTREAM_ERROR', `the local model runner at ${this.host} is not reachable (${(err as Error).message}); set OLLAMA_HOST`);
    }
  }
}

function upstream(status: number, text: string): RoostError {
  let message = text;
  try {
    message = (JSON.parse(text) as { error?: string }).error ?? text;
  } catch {
    // not JSON: keep the text
  }
  if (status === 404) return new RoostError('NOT_FOUND', `local model runner: ${message}`);
  return new RoostError('UPSTREAM_ERROR', `local model runner answered ${status}: ${message}`);
}
