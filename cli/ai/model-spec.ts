// `--with-model` values: `provider:model`, or a bare model name for the active provider. Ollama tags
// contain colons too (`llama3:8b`), so only a known provider name before the first colon selects one.
import { usageError } from '../output.js';
import { isProviderName, type ProviderName } from '../../lib/providers/types.js';

export interface ModelChoice {
  provider: ProviderName;
  model: string;
}

export function parseModelSpec(spec: string, activeProvider: ProviderName): ModelChoice {
  const trimmed = spec.trim();
  const colon = trimmed.indexOf(':');
  const prefix = colon > 0 ? trimmed.slice(0, colon) : '';
  if (isProviderName(prefix)) {
    const model = trimmed.slice(colon + 1).trim();
    if (!model) throw usageError(`--with-model "${spec}" names no model after "${prefix}:"`);
    return { provider: prefix, model };
  }
  if (!trimmed) throw usageError('--with-model needs a model name, e.g. --with-model ollama:llama3');
  return { provider: activeProvider, model: trimmed };
}
