// Plain text completion on top of the streaming drivers, for one-shot commands (`roost review`,
// `roost ai status --check`): no tools, text deltas to `onText`, the text blocks joined into one answer.
import { RoostError } from '../../protocol/errors.js';
import { createDriver } from './drivers.js';
import type { ModelCheck, ModelDriver, ProviderName, TextMessage, Usage } from './types.js';

export interface CompletionRequest {
  system?: string;
  messages: TextMessage[];
  maxTokens: number;
  /** Bounds the call: an AbortSignal.timeout gives TIMEOUT, any other abort CANCELLED. */
  signal?: AbortSignal;
  /** Called with each piece of text as it streams in. */
  onText?: (delta: string) => void;
}

export interface CompletionResult {
  text: string;
  usage: Usage;
  /** Why the model stopped, in the provider's own words (end_turn, max_tokens, stop, length…). */
  stopReason: string | null;
}

export interface ProviderOptions {
  model: string;
  baseUrl: string;
  /** Anthropic only; a missing key fails at construction with a message naming ANTHROPIC_API_KEY. */
  apiKey?: string;
  /** Retries on 429/5xx for hosted providers (the SDK honours retry-after); default 2. */
  maxRetries?: number;
}

export class ModelProvider {
  constructor(private readonly driver: ModelDriver) {}

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    try {
      const reply = await this.driver.send(
        { system: request.system ?? '', messages: request.messages, tools: [], maxTokens: request.maxTokens, signal: request.signal },
        (event) => {
          if (event.type === 'text_delta') request.onText?.(event.text);
        },
      );
      const text = reply.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      return { text, usage: reply.usage, stopReason: reply.stopReason };
    } catch (err) {
      throw asCommandError(err);
    }
  }

  checkModel(signal?: AbortSignal): Promise<ModelCheck> {
    return this.driver.checkModel(signal);
  }
}

/** A client for one-shot text completion; the caller's signal is the only time limit. */
export function createProvider(name: ProviderName, options: ProviderOptions): ModelProvider {
  return new ModelProvider(
    createDriver({ provider: name, ...options, maxRetries: options.maxRetries ?? 2, requestTimeoutMs: null }),
  );
}

/** A command retries nothing after the SDK's own retries, so an outage is just the provider failing. */
function asCommandError(err: unknown): unknown {
  if (!(err instanceof RoostError) || err.code !== 'PROVIDER_UNAVAILABLE') return err;
  return new RoostError('UPSTREAM_ERROR', err.message, { cause: err.cause, details: err.details });
}
