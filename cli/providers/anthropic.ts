// Anthropic's Messages API through the official SDK. Replies are streamed (the SDK recommends it for
// long answers, and callers may watch text arrive) and gathered into one CompletionResult.
import Anthropic from '@anthropic-ai/sdk';
import { abortedError, providerNotConfigured, unreachableError, upstreamStatusError } from './errors.js';
import type { CompletionRequest, CompletionResult, ModelCheck, ModelProvider, ProviderOptions } from './types.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_DEFAULT_MODEL = 'claude-sonnet-5-5';

export class AnthropicProvider implements ModelProvider {
  readonly name = 'anthropic' as const;
  readonly model: string;
  readonly baseUrl: string;
  readonly #client: Anthropic;

  constructor(options: ProviderOptions) {
    if (!options.apiKey) {
      throw providerNotConfigured(
        'ANTHROPIC_API_KEY is not set: export ANTHROPIC_API_KEY=<your key>, or use a local model with ROOST_AI_PROVIDER=ollama',
      );
    }
    this.model = options.model;
    this.baseUrl = options.baseUrl;
    // The key and base URL are passed explicitly so the SDK never falls back to other credential sources.
    this.#client = new Anthropic({ apiKey: options.apiKey, baseURL: options.baseUrl, maxRetries: options.maxRetries ?? 2 });
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    try {
      const stream = this.#client.messages.stream(
        {
          model: this.model,
          max_tokens: request.maxTokens,
          ...(request.system ? { system: request.system } : {}),
          messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        },
        { signal: request.signal },
      );
      if (request.onText) stream.on('text', request.onText);
      const message = await stream.finalMessage();
      const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      return {
        text,
        usage: { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens },
        stopReason: message.stop_reason,
      };
    } catch (err) {
      throw this.#translate(err, request.signal);
    }
  }

  async checkModel(signal?: AbortSignal): Promise<ModelCheck> {
    try {
      const info = await this.#client.models.retrieve(this.model, {}, { signal, maxRetries: 0 });
      return { reachable: true, modelAvailable: true, detail: `model ${info.id} is available` };
    } catch (err) {
      if (err instanceof Anthropic.NotFoundError) {
        return { reachable: true, modelAvailable: false, detail: `model ${this.model} is unknown to ${this.baseUrl}` };
      }
      const error = this.#translate(err, signal);
      return { reachable: !(err instanceof Anthropic.APIConnectionError), modelAvailable: null, detail: error.message };
    }
  }

  #translate(err: unknown, signal: AbortSignal | undefined): Error {
    if (err instanceof Anthropic.APIUserAbortError || signal?.aborted) return abortedError('anthropic', signal);
    if (err instanceof Anthropic.APIConnectionError) {
      return unreachableError('anthropic', this.baseUrl, err, 'check ANTHROPIC_BASE_URL and your network');
    }
    if (err instanceof Anthropic.APIError) {
      const kind = err.type ? `${err.type}: ` : '';
      const detail = `${kind}${err.apiMessage ?? err.message}`;
      // A 429/5xx status from the HTTP answer, or an `error` event in the middle of a stream.
      return upstreamStatusError('anthropic', err.status ?? statusOfStreamError(err.type), detail);
    }
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** Errors delivered inside an SSE stream carry only a type; map it to the status the API would use. */
function statusOfStreamError(type: string | null): number {
  switch (type) {
    case 'rate_limit_error':
      return 429;
    case 'overloaded_error':
      return 529;
    default:
      return 500;
  }
}
