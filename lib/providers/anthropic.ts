// The Anthropic Messages API through the official SDK, streamed, with tool use. Sessions get no SDK
// retries (maxRetries 0): the session pauses and its auto-resume schedule retries. The SDK is the
// largest module an agent runner could load: it is imported with the first call, so a runner (or a
// command) that talks to another provider never loads it, and one that does starts before it loads.
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, ContentBlockParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { CallLimits, driverTimeout } from './call-limits.js';
import { answerOnLoopback } from './warm-up.js';
import { aborted, isUnreachable, notConfigured, statusError, unreachable } from './errors.js';
import type { Block, ChatMessage, ModelCheck, ModelDriver, ModelReply, ModelRequest, ProviderConfig, StreamEvent, TextMessage } from './types.js';

const REACH_HINT = 'check ANTHROPIC_BASE_URL and your network';

type Sdk = typeof Anthropic;
let sdk: Promise<Sdk> | undefined;
const loadSdk = (): Promise<Sdk> => (sdk ??= import('@anthropic-ai/sdk').then((m) => m.default));

/**
 * Does ahead of the first call what it would do first: loads the SDK and streams one canned answer
 * through it, over HTTP from a server of this process's own (warm-up.ts), or, where none can listen,
 * from a `fetch` of its own. A process's first call through code V8 has never run costs several times
 * the CPU of the calls after it; this way a session's first turn is not that call.
 */
export function preloadAnthropicSdk(): Promise<void> {
  return loadSdk()
    .then(async (AnthropicSdk) => {
      const answer = await answerOnLoopback(WARM_UP_STREAM, 'text/event-stream');
      const canned = { baseURL: 'http://127.0.0.1:9', fetch: async () => new Response(WARM_UP_STREAM, { headers: { 'content-type': 'text/event-stream' } }) };
      try {
        const client = new AnthropicSdk({ apiKey: 'warm-up', maxRetries: 0, ...(answer ? { baseURL: answer.url } : canned) });
        const stream = client.messages.stream({ model: 'warm-up', max_tokens: 1, messages: [{ role: 'user', content: 'warm-up' }] });
        stream.on('text', () => undefined);
        await stream.finalMessage();
      } finally {
        answer?.close();
      }
    })
    .catch(() => {
      sdk = undefined;
    });
}

/** A whole streamed answer as the Messages API sends it, for the warm-up. */
const WARM_UP_STREAM = [
  ['message_start', { type: 'message_start', message: { id: 'warm-up', type: 'message', role: 'assistant', model: 'warm-up', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }],
  ['message_stop', { type: 'message_stop' }],
].map(([event, data]) => `event: ${event as string}\ndata: ${JSON.stringify(data)}\n\n`).join('');

export class AnthropicDriver implements ModelDriver {
  readonly provider = 'anthropic' as const;
  readonly model: string;
  private client: Promise<Anthropic> | undefined;
  private readonly timeoutMs: number | null;

  constructor(private readonly config: ProviderConfig) {
    if (!config.apiKey) {
      throw notConfigured('ANTHROPIC_API_KEY is not set: export ANTHROPIC_API_KEY=<your key>, or use a local model with ROOST_AI_PROVIDER=ollama');
    }
    this.model = config.model;
    this.timeoutMs = driverTimeout(config.requestTimeoutMs);
  }

  private connect(): Promise<Anthropic> {
    // The key and base URL are passed explicitly so the SDK never falls back to other credential sources.
    this.client ??= loadSdk().then((AnthropicSdk) => new AnthropicSdk({
      apiKey: this.config.apiKey,
      baseURL: this.config.baseUrl,
      maxRetries: this.config.maxRetries ?? 0,
      ...(this.timeoutMs === null ? {} : { timeout: this.timeoutMs }),
    }));
    return this.client;
  }

  async send(request: ModelRequest, onEvent: (event: StreamEvent) => void): Promise<ModelReply> {
    const [AnthropicSdk, client] = await Promise.all([loadSdk(), this.connect()]);
    const limits = new CallLimits('anthropic', request.signal, this.timeoutMs);
    try {
      const stream = client.messages.stream(
        {
          model: this.model,
          max_tokens: request.maxTokens,
          ...(request.system ? { system: request.system } : {}),
          messages: request.messages.map(toParam),
          ...(request.tools.length > 0 ? { tools: request.tools.map(toTool) } : {}),
        },
        { signal: limits.signal },
      );
      stream.on('text', (text) => onEvent({ type: 'text_delta', text }));
      stream.on('thinking', (thinking) => onEvent({ type: 'thinking_delta', thinking }));
      stream.on('contentBlock', (block) => {
        if (block.type === 'tool_use') onEvent({ type: 'tool_use', id: block.id, name: block.name, input: asObject(block.input) });
      });
      const message = await stream.finalMessage();
      const content: Block[] = [];
      for (const block of message.content) {
        if (block.type === 'text') content.push({ type: 'text', text: block.text });
        else if (block.type === 'thinking') content.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
        else if (block.type === 'tool_use') content.push({ type: 'tool_use', id: block.id, name: block.name, input: asObject(block.input) });
      }
      return {
        content,
        usage: { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens },
        stopReason: message.stop_reason,
        model: message.model,
      };
    } catch (err) {
      throw limits.abortError() ?? this.translate(AnthropicSdk, err, request.signal);
    }
  }

  async checkModel(signal?: AbortSignal): Promise<ModelCheck> {
    const [AnthropicSdk, client] = await Promise.all([loadSdk(), this.connect()]);
    try {
      const info = await client.models.retrieve(this.model, {}, { signal, maxRetries: 0 });
      return { reachable: true, modelAvailable: true, detail: `model ${info.id} is available` };
    } catch (err) {
      if (err instanceof AnthropicSdk.NotFoundError) {
        return { reachable: true, modelAvailable: false, detail: `model ${this.model} is unknown to ${this.config.baseUrl}` };
      }
      const error = signal?.aborted ? aborted('anthropic', signal) : this.translate(AnthropicSdk, err, signal);
      return { reachable: !isUnreachable(error), modelAvailable: null, detail: error.message };
    }
  }

  private translate(AnthropicSdk: Sdk, err: unknown, signal: AbortSignal | undefined): Error {
    if (err instanceof AnthropicSdk.APIUserAbortError) return aborted('anthropic', signal);
    if (err instanceof AnthropicSdk.APIConnectionError) return unreachable('anthropic', this.config.baseUrl, err, REACH_HINT);
    if (err instanceof AnthropicSdk.APIError) {
      const detail = `${err.type ? `${err.type}: ` : ''}${err.apiMessage ?? err.message}`;
      return statusError('anthropic', err.status ?? statusOfStreamError(err.type), detail);
    }
    return err instanceof Error ? err : new Error(String(err));
  }
}

function toParam(message: ChatMessage | TextMessage): MessageParam {
  if (typeof message.content === 'string') return { role: message.role, content: message.content };
  const content: ContentBlockParam[] = [];
  for (const block of message.content) {
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    // A thinking block goes back only with the signature the API gave it.
    else if (block.type === 'thinking' && block.signature) content.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    else if (block.type === 'tool_use') content.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
    else if (block.type === 'tool_result') content.push({ type: 'tool_result', tool_use_id: block.toolUseId, content: block.content, is_error: block.isError });
  }
  return { role: message.role, content };
}

function toTool(tool: { name: string; description: string; inputSchema: Record<string, unknown> }): Tool {
  return { name: tool.name, description: tool.description, input_schema: { ...tool.inputSchema, type: 'object' } as Tool['input_schema'] };
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** An `error` event inside an SSE stream carries only a type; map it to the status the API would use. */
function statusOfStreamError(type: string | null): number {
  if (type === 'rate_limit_error') return 429;
  if (type === 'invalid_request_error') return 400;
  if (type === 'authentication_error') return 401;
  return type === 'overloaded_error' ? 529 : 500;
}
