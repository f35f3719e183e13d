// Every provider's driver, its built-in defaults and where its settings come from.
import { ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_DEFAULT_MODEL, AnthropicDriver } from './anthropic.js';
import { OLLAMA_DEFAULT_HOST, OLLAMA_DEFAULT_MODEL, OllamaDriver } from './ollama.js';
import type { ModelDriver, ProviderConfig, ProviderName } from './types.js';

/** Built-in defaults, and the environment variables (or server secrets) that override them. */
export const PROVIDER_DEFAULTS: Record<ProviderName, { model: string; baseUrl: string; baseUrlEnv: string; apiKeyEnv?: string }> = {
  anthropic: {
    model: ANTHROPIC_DEFAULT_MODEL,
    baseUrl: ANTHROPIC_DEFAULT_BASE_URL,
    baseUrlEnv: 'ANTHROPIC_BASE_URL',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
  },
  ollama: { model: OLLAMA_DEFAULT_MODEL, baseUrl: OLLAMA_DEFAULT_HOST, baseUrlEnv: 'OLLAMA_HOST' },
};

export function createDriver(config: ProviderConfig): ModelDriver {
  return config.provider === 'anthropic' ? new AnthropicDriver(config) : new OllamaDriver(config);
}
