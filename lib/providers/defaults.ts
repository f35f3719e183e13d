// Each provider's built-in defaults and where its settings come from. Kept apart from the drivers so
// that reading them never loads a provider SDK (the sessions extension starts faster).
import type { ProviderName } from './types.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_DEFAULT_MODEL = 'claude-sonnet-5-5';
export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';
export const OLLAMA_DEFAULT_MODEL = 'llama3.2';

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

/** OLLAMA_HOST may omit the scheme and port ("127.0.0.1", "box:8080"): like Ollama, assume http and 11434. */
export function normalizeOllamaHost(host: string): string {
  const trimmed = host.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) return new URL(trimmed).toString().replace(/\/+$/, '');
  const url = new URL(`http://${trimmed}`);
  if (!url.port) url.port = '11434';
  return url.origin;
}
