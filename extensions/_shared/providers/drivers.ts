// Every provider's driver, and the built-in echo.
import { AnthropicDriver } from './anthropic.js';
import { EchoDriver } from './echo.js';
import { OllamaDriver } from './ollama.js';
import type { ModelDriver, ProviderConfig } from './types.js';

export function createDriver(config: ProviderConfig): ModelDriver {
  if (config.provider === 'echo') return new EchoDriver(config);
  return config.provider === 'anthropic' ? new AnthropicDriver(config) : new OllamaDriver(config);
}
