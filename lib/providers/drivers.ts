// Every provider's driver, and the built-in echo.
import { AnthropicDriver, preloadAnthropicSdk } from './anthropic.js';
import { EchoDriver } from './echo.js';
import { OllamaDriver, preloadOllama } from './ollama.js';
import type { DriverName, ModelDriver, ProviderConfig } from './types.js';

export function createDriver(config: ProviderConfig): ModelDriver {
  if (config.provider === 'echo') return new EchoDriver(config);
  return config.provider === 'anthropic' ? new AnthropicDriver(config) : new OllamaDriver(config);
}

/** Does what a provider's first call would do first (loads its SDK, runs its HTTP client once); never rejects. */
export async function preloadDriver(provider: DriverName): Promise<void> {
  if (provider === 'anthropic') await preloadAnthropicSdk();
  if (provider === 'ollama') await preloadOllama();
}
