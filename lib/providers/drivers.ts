// Every provider's driver, and the built-in echo.
import { AnthropicDriver, preloadAnthropicSdk } from './anthropic.js';
import { EchoDriver } from './echo.js';
import { OllamaDriver } from './ollama.js';
import type { DriverName, ModelDriver, ProviderConfig } from './types.js';

export function createDriver(config: ProviderConfig): ModelDriver {
  if (config.provider === 'echo') return new EchoDriver(config);
  return config.provider === 'anthropic' ? new AnthropicDriver(config) : new OllamaDriver(config);
}

/** Loads what a provider's first call would (the Anthropic SDK; Ollama needs nothing); never rejects. */
export async function preloadDriver(provider: DriverName): Promise<void> {
  if (provider === 'anthropic') await preloadAnthropicSdk();
}
