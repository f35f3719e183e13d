// One door to every provider client: pick by name, get a ModelProvider.
import { ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_DEFAULT_MODEL, AnthropicProvider } from './anthropic.js';
import { OLLAMA_DEFAULT_HOST, OLLAMA_DEFAULT_MODEL, OllamaProvider } from './ollama.js';
import type { ModelProvider, ProviderName, ProviderOptions } from './types.js';

export type { ChatMessage, CompletionRequest, CompletionResult, ModelCheck, ModelProvider, ProviderName, Usage } from './types.js';
export { PROVIDER_NAMES, isProviderName } from './types.js';

/** Built-in defaults, and the environment variable that overrides each provider's address. */
export const PROVIDER_DEFAULTS: Record<ProviderName, { model: string; baseUrl: string; baseUrlEnv: string; apiKeyEnv?: string }> = {
  anthropic: {
    model: ANTHROPIC_DEFAULT_MODEL,
    baseUrl: ANTHROPIC_DEFAULT_BASE_URL,
    baseUrlEnv: 'ANTHROPIC_BASE_URL',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
  },
  ollama: { model: OLLAMA_DEFAULT_MODEL, baseUrl: OLLAMA_DEFAULT_HOST, baseUrlEnv: 'OLLAMA_HOST' },
};

export function createProvider(name: ProviderName, options: ProviderOptions): ModelProvider {
  switch (name) {
    case 'anthropic':
      return new AnthropicProvider(options);
    case 'ollama':
      return new OllamaProvider(options);
  }
}
