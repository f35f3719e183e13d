// Every provider's driver.
import { AnthropicDriver } from './anthropic.js';
import { OllamaDriver } from './ollama.js';
import type { ModelDriver, ProviderConfig } from './types.js';

export function createDriver(config: ProviderConfig): ModelDriver {
  return config.provider === 'anthropic' ? new AnthropicDriver(config) : new OllamaDriver(config);
}
