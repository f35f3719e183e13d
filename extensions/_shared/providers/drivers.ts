// Every provider's driver.
import { AnthropicDriver, preloadAnthropicSdk } from './anthropic.js';
import { OllamaDriver } from './ollama.js';
import type { ModelDriver, ProviderConfig, ProviderName } from './types.js';

export function createDriver(config: ProviderConfig): ModelDriver {
  return config.provider === 'anthropic' ? new AnthropicDriver(config) : new OllamaDriver(config);
}

/** Loads what a provider's first call would (the Anthropic SDK; Ollama needs nothing); never rejects. */
export async function preloadDriver(provider: ProviderName): Promise<void> {
  if (provider === 'anthropic') await preloadAnthropicSdk();
}
