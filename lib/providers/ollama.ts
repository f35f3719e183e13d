// A local model runner over the Ollama HTTP API: POST /api/chat with tools, streamed as NDJSON, and
// GET /api/tags to see which models are installed.
import { randomUUID } from 'node:crypto';
import { RoostError } from '../../protocol/errors.js';
import { CallLimits, driverTimeout } from './call-limits.js';
import { aborted, isUnreachable, statusError, unreachable } from './errors.js';
import { readNdjson } from './ndjson.js';
import type { Block, ChatMessage, ModelCheck, ModelDriver, ModelReply, ModelRequest, ProviderConfig, StreamEvent, TextMessage } from './types.js';
import { normalizeOllamaHost } from './defaults.js';
import { answerOnLoopback } from './warm-up.js';

const REACH_HINT = 'is `ollama serve` running? (set OLLAMA_HOST if it listens elsewhere)';

interface ChatChunk {
  message?: { content?: string; thinking?: string; tool_calls?: Array<{ function?: { name?: string; arguments?: unknown } }> };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: string;
}

type OllamaMessage = { role: 'system' | 'user' | 'assistant' | 'tool'; content: string; tool_calls?: unknown[]; tool_name?: string };

/** Ollama names a model `name:tag`; a bare name means the `latest` tag. */
export function fullModelName(name: string): string {
  return name.includes(':') ? name : `${name}:latest`;
}

/** Streams one canned chat answer through the driver, so a session's first turn is not the process's first fetch (warm-up.ts); never rejects. */
export async function preloadOllama(): Promise<void> {
  const answer = await answerOnLoopback(`${JSON.stringify({ message: { content: 'ok' }, done: true })}\n`, 'application/x-ndjson');
  if (!answer) return;
  try {
    await new OllamaDriver({ provider: 'ollama', model: 'warm-up', baseUrl: answer.url }).send({ system: '', messages: [{ role: 'user', content: 'warm-up' }], tools: [], maxTokens: 1 }, () => undefined);
  } catch {
    // A warm-up that failed leaves the first call to pay what it would have paid anyway.
  } finally {
    answer.close();
  }
}

export class OllamaDriver implements ModelDriver {
  readonly provider = 'ollama' as const;
  readonly model: string;
  private readonly baseUrl: string;
  private readonly timeoutMs: number | null;

  constructor(config: ProviderConfig) {
    this.model = config.model;
    this.baseUrl = normalizeOllamaHost(config.baseUrl);
    this.timeoutMs = driverTimeout(config.requestTimeoutMs);
  }

  async send(request: ModelRequest, onEvent: (event: StreamEvent) => void): Promise<ModelReply> {
    const limits = new CallLimits('ollama', request.signal, this.timeoutMs);
    const response = await this.fetch('/api/chat', limits, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: this.model,
        stream: true,
        messages: toOllama(request.system, request.messages),
        ...(request.tools.length > 0 ? { tools: request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })) } : {}),
        options: { num_predict: request.maxTokens },
      }),
    });

    let text = '';
    let thinking = '';
    const toolUses: Array<Extract<Block, { type: 'tool_use' }>> = [];
    try {
      for await (const value of readNdjson(response.body!)) {
        const chunk = value as ChatChunk;
        if (chunk.error) throw statusError('ollama', 500, chunk.error);
        const m = chunk.message;
        if (m?.thinking) {
          thinking += m.thinking;
          onEvent({ type: 'thinking_delta', thinking: m.thinking });
        }
        if (m?.content) {
          text += m.content;
          onEvent({ type: 'text_delta', text: m.content });
        }
        for (const call of m?.tool_calls ?? []) {
          const use = { type: 'tool_use' as const, id: `call_${randomUUID()}`, name: String(call.function?.name ?? ''), input: asObject(call.function?.arguments) };
          toolUses.push(use);
          onEvent({ type: 'tool_use', id: use.id, name: use.name, input: use.input });
        }
        if (chunk.done) {
          const content: Block[] = [];
          if (thinking) content.push({ type: 'thinking', thinking });
          if (text) content.push({ type: 'text', text });
          content.push(...toolUses);
          return {
            content,
            usage: { inputTokens: chunk.prompt_eval_count ?? 0, outputTokens: chunk.eval_count ?? 0 },
            stopReason: toolUses.length > 0 ? 'tool_use' : (chunk.done_reason ?? null),
            model: this.model,
          };
        }
      }
    } catch (err) {
      throw this.failure(err, limits);
    }
    throw statusError('ollama', 502, 'the reply stream ended before its final "done" line');
  }

  async checkModel(signal?: AbortSignal): Promise<ModelCheck> {
    try {
      const response = await this.fetch('/api/tags', new CallLimits('ollama', signal, null), { method: 'GET' });
      const body = (await response.json()) as { models?: Array<{ name?: string; model?: string }> };
      const wanted = fullModelName(this.model);
      const installed = (body.models ?? []).some((m) => fullModelName(m.name ?? m.model ?? '') === wanted);
      return installed
        ? { reachable: true, modelAvailable: true, detail: `model ${wanted} is installed` }
        : { reachable: true, modelAvailable: false, detail: `model ${wanted} is not installed; run: ollama pull ${this.model}` };
    } catch (err) {
      const error = signal?.aborted ? aborted('ollama', signal) : err;
      return { reachable: !isUnreachable(error), modelAvailable: null, detail: error instanceof Error ? error.message : String(error) };
    }
  }

  /** fetch with Ollama's error shape ({"error": "..."}) turned into RoostErrors. */
  private async fetch(path: string, limits: CallLimits, init: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { ...init, signal: limits.signal });
    } catch (err) {
      throw this.failure(err, limits);
    }
    if (response.ok && response.body) return response;
    let detail = await errorText(response);
    if (response.status === 404 && path === '/api/chat') detail += `; run: ollama pull ${this.model}`;
    throw statusError('ollama', response.status, detail);
  }

  private failure(err: unknown, limits: CallLimits): RoostError {
    if (err instanceof RoostError) return err;
    const abort = limits.abortError();
    if (abort) return abort;
    if (err instanceof SyntaxError) return statusError('ollama', 502, `a reply line is not JSON (${err.message})`);
    return unreachable('ollama', this.baseUrl, err, REACH_HINT);
  }
}

function toOllama(system: string, messages: Array<ChatMessage | TextMessage>): OllamaMessage[] {
  const out: OllamaMessage[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    if (typeof message.content === 'string') {
      out.push({ role: message.role, content: message.content });
      continue;
    }
    const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    if (message.role === 'assistant') {
      const calls = message.content.flatMap((b) => (b.type === 'tool_use' ? [{ function: { name: b.name, arguments: b.input } }] : []));
      out.push({ role: 'assistant', content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      continue;
    }
    for (const block of message.content) {
      if (block.type === 'tool_result') out.push({ role: 'tool', content: block.content, tool_name: block.name });
    }
    if (text) out.push({ role: 'user', content: text });
  }
  return out;
}

async function errorText(response: Response): Promise<string> {
  const raw = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(raw) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // not JSON: the raw text is the detail
  }
  return raw || response.statusText;
}

function asObject(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      return asObject(JSON.parse(value));
    } catch {
      return {};
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
