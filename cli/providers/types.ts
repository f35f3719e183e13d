// The contract every model provider client honours. Kept free of CLI concerns so the server's agent
// runtime can reuse the same clients.

export const PROVIDER_NAMES = ['anthropic', 'ollama'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export function isProviderName(value: unknown): value is ProviderName {
  return typeof value === 'string' && (PROVIDER_NAMES as readonly string[]).includes(value);
}

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  system?: string;
  messages: ChatMessage[];
  maxTokens: number;
  signal?: AbortSignal;
  /** Called with each piece of text as it streams in. */
  onText?: (delta: string) => void;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface CompletionResult {
  text: string;
  usage: Usage;
  /** Why the model stopped, in the provider's own words (end_turn, max_tokens, stop, length…). */
  stopReason: string | null;
}

export interface ModelCheck {
  /** The provider answered at all. */
  reachable: boolean;
  /** The model exists for this provider (installed, for a local runner); null when unknown. */
  modelAvailable: boolean | null;
  detail: string;
}

export interface ModelProvider {
  readonly name: ProviderName;
  readonly model: string;
  readonly baseUrl: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
  /** A cheap probe that spends no tokens: is the provider there and does it know the model? */
  checkModel(signal?: AbortSignal): Promise<ModelCheck>;
}

export interface ProviderOptions {
  model: string;
  baseUrl: string;
  /** Anthropic only; a missing key fails at construction with a message naming ANTHROPIC_API_KEY. */
  apiKey?: string;
  /** Retries on 429/5xx for hosted providers (the SDK honours retry-after). */
  maxRetries?: number;
}
