// A provider-neutral conversation with tools, and the contract of a streaming model driver. The agent
// runner speaks this, and so (through completion.ts) do the CLI's one-shot commands; each driver maps
// it to its provider's wire format (Anthropic Messages API, Ollama /api/chat).

export const PROVIDER_NAMES = ['anthropic', 'ollama'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export function isProviderName(value: unknown): value is ProviderName {
  return typeof value === 'string' && (PROVIDER_NAMES as readonly string[]).includes(value);
}

/** What can drive an agent: a model provider, or the built-in echo (echo.ts), chosen only explicitly. */
export type DriverName = ProviderName | 'echo';

export type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; toolUseId: string; name: string; content: string; isError: boolean };

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/** A message of plain text, sent as the provider's plain-string content. */
export interface TextMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's input (an object schema). */
  inputSchema: Record<string, unknown>;
}

/** What streams out of a model call while it runs, in order. */
export type StreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; thinking: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface ModelRequest {
  system: string;
  messages: Array<ChatMessage | TextMessage>;
  tools: ToolSpec[];
  maxTokens: number;
  /** The caller's abort: a TimeoutError reason gives TIMEOUT, any other abort CANCELLED. */
  signal?: AbortSignal;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelReply {
  /** The assistant's blocks: thinking, text and tool uses, in the order the model produced them. */
  content: Block[];
  usage: Usage;
  /** The provider's own words: end_turn, tool_use, max_tokens, stop, length… */
  stopReason: string | null;
  model: string;
}

export interface ModelCheck {
  /** The provider answered at all. */
  reachable: boolean;
  /** The model exists for this provider (installed, for a local runner); null when unknown. */
  modelAvailable: boolean | null;
  detail: string;
}

export interface ModelDriver {
  readonly provider: DriverName;
  readonly model: string;
  /** One model round trip, streamed: `onEvent` sees every delta before the promise resolves. */
  send(request: ModelRequest, onEvent: (event: StreamEvent) => void): Promise<ModelReply>;
  /** A cheap probe that spends no tokens: is the provider there and does it know the model? */
  checkModel(signal?: AbortSignal): Promise<ModelCheck>;
}

export interface ProviderConfig {
  provider: DriverName;
  model: string;
  baseUrl: string;
  /** Anthropic only; a missing key fails when the driver is built, naming ANTHROPIC_API_KEY. */
  apiKey?: string;
  /**
   * How long one model call may take before it is abandoned as an outage (PROVIDER_UNAVAILABLE);
   * default 10 min. null: no limit of the driver's own, the caller's signal bounds the call.
   */
  requestTimeoutMs?: number | null;
  /** SDK retries of 429/5xx (Anthropic honours retry-after); default 0. */
  maxRetries?: number;
}
