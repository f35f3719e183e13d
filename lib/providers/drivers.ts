// Every provider's driver, and the built-in echo.
import { AnthropicDriver, preloadAnthropicSdk } from './anthropic.js';
import { EchoDriver } from './echo.js';
import { OllamaDriver, preloadOllama } from './ollama.js';
import type { DriverName, ModelDriver, ProviderConfig } from './types.js';

export function createDriver(config: ProviderConfig): ModelDriver {
  if (config.provider === 'echo') return new EchoDriver(config);
  return config.provider === 'anthropic' ? new AnthropicDriver(config) : new OllamaDriver(config);
}

/** The warm-up of each provider this process made: once is enough (a spare runner's, then its session's start asks again). */
const warmedUp = new Map<DriverName, Promise<void>>();

/** Does what a provider's first call would do first (loads its SDK, runs its HTTP client once), once a process; never rejects. */
export function preloadDriver(provider: DriverName): Promise<void> {
  let warmUp = warmedUp.get(provider);
  if (!warmUp) warmedUp.set(provider, (warmUp = provider === 'anthropic' ? preloadAnthropicSdk() : provider === 'ollama' ? preloadOllama() : Promise.resolve()));
  return warmUp;
}
