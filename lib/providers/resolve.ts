// A provider's configuration read from named secrets (the server's `secret` capability). It loads no
// provider SDK, so the sessions extension can check configuration without paying for one.
import { OLLAMA_DEFAULT_HOST, PROVIDER_DEFAULTS, normalizeOllamaHost } from './defaults.js';
import { notConfigured } from './errors.js';
import type { DriverName, ProviderConfig } from './types.js';

export type SecretReader = (name: string) => Promise<string | null | undefined>;

/**
 * The configuration a driver needs, or PROVIDER_NOT_CONFIGURED naming the variable to set. Anthropic
 * needs ANTHROPIC_API_KEY; Ollama uses OLLAMA_HOST, or the default address when something answers there;
 * the built-in echo needs nothing.
 */
export async function resolveProvider(provider: DriverName, model: string, secret: SecretReader): Promise<ProviderConfig> {
  if (provider === 'echo') return { provider, model, baseUrl: '' };
  if (provider === 'anthropic') {
    const [apiKey, baseUrl] = await Promise.all([secret('ANTHROPIC_API_KEY'), secret('ANTHROPIC_BASE_URL')]);
    if (!apiKey) {
      throw notConfigured('the anthropic provider is not configured: set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for a proxy) in the server environment');
    }
    return { provider, model, apiKey, baseUrl: baseUrl || PROVIDER_DEFAULTS.anthropic.baseUrl };
  }
  const host = await secret('OLLAMA_HOST');
  if (host) return { provider, model, baseUrl: normalizeOllamaHost(host) };
  if (await answers(OLLAMA_DEFAULT_HOST)) return { provider, model, baseUrl: OLLAMA_DEFAULT_HOST };
  throw notConfigured(`the ollama provider is not configured: set OLLAMA_HOST (nothing answers at the default ${OLLAMA_DEFAULT_HOST})`);
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}
