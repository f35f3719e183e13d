// Which provider and model are active, and where each value came from. Layers, strongest first:
// flags, environment, project config, home config, built-in default.
import { RoostError } from '../../protocol/errors.js';
import { usageError } from '../output.js';
import {
  PROVIDER_DEFAULTS,
  PROVIDER_NAMES,
  createProvider,
  isProviderName,
  normalizeOllamaHost,
  type ModelProvider,
  type ProviderName,
} from '../../lib/providers/index.js';
import { loadConfigFiles, type ConfigFile } from './config-files.js';
import { findProjectRoot } from '../../lib/project/detect.js';

export type ValueSource = 'flag' | 'env' | 'project' | 'home' | 'default';

export interface Sourced<T> {
  value: T;
  source: ValueSource;
  /** The flag, variable or file (with its key) that set the value, or why a default applies. */
  from: string;
}

export interface AiFlags {
  provider?: string;
  model?: string;
}

export interface ProviderSettings {
  baseUrl: Sourced<string>;
  /** Only for providers that need a key; the key itself is never part of this. */
  apiKey: { variable: string; present: boolean } | null;
}

/** One layer's say about the active provider and model. */
interface Layer {
  source: Exclude<ValueSource, 'default'>;
  provider?: { value: ProviderName; from: string };
  model?: { value: string; from: string };
  /** Models named for one provider only ([ai.ollama] model). */
  modelFor: Partial<Record<ProviderName, { value: string; from: string }>>;
  baseUrlFor: Partial<Record<ProviderName, { value: string; from: string }>>;
}

export class AiConfig {
  readonly provider: Sourced<ProviderName>;
  readonly model: Sourced<string>;

  private constructor(
    readonly configFiles: ConfigFile[],
    private readonly layers: Layer[],
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.provider = this.#resolveProvider();
    this.model = this.modelFor(this.provider.value);
  }

  static async load(cwd: string, env: NodeJS.ProcessEnv, flags: AiFlags = {}): Promise<AiConfig> {
    const files = await loadConfigFiles(findProjectRoot(cwd), env);
    const layers = [flagLayer(flags), envLayer(env), ...files.map(fileLayer)];
    return new AiConfig(files, layers, env);
  }

  /** A layer's model belongs to the provider that layer names; a layer naming none lends it to any. */
  modelFor(provider: ProviderName): Sourced<string> {
    for (const layer of this.layers) {
      const specific = layer.modelFor[provider];
      if (specific) return { value: specific.value, source: layer.source, from: specific.from };
      if (layer.model && (!layer.provider || layer.provider.value === provider)) {
        return { value: layer.model.value, source: layer.source, from: layer.model.from };
      }
    }
    return { value: PROVIDER_DEFAULTS[provider].model, source: 'default', from: `built-in default for ${provider}` };
  }

  settingsFor(provider: ProviderName): ProviderSettings {
    const defaults = PROVIDER_DEFAULTS[provider];
    let baseUrl: Sourced<string> = { value: defaults.baseUrl, source: 'default', from: `built-in default for ${provider}` };
    for (const layer of this.layers) {
      const set = layer.baseUrlFor[provider];
      if (set) {
        baseUrl = { value: set.value, source: layer.source, from: set.from };
        break;
      }
    }
    baseUrl = { ...baseUrl, value: checkedAddress(provider, baseUrl) };
    const apiKey = defaults.apiKeyEnv ? { variable: defaults.apiKeyEnv, present: Boolean(this.env[defaults.apiKeyEnv]) } : null;
    return { baseUrl, apiKey };
  }

  /** A client for one provider and model, with that provider's address and key. */
  createClient(provider: ProviderName, model: string): ModelProvider {
    const keyVariable = PROVIDER_DEFAULTS[provider].apiKeyEnv;
    return createProvider(provider, {
      model,
      baseUrl: this.settingsFor(provider).baseUrl.value,
      apiKey: keyVariable ? this.env[keyVariable] || undefined : undefined,
    });
  }

  #resolveProvider(): Sourced<ProviderName> {
    for (const layer of this.layers) {
      if (layer.provider) return { value: layer.provider.value, source: layer.source, from: layer.provider.from };
    }
    // No one chose: a present Anthropic key wins, else a configured local runner, else Anthropic (whose
    // missing key is then reported by name).
    if (this.env.ANTHROPIC_API_KEY) return { value: 'anthropic', source: 'default', from: 'default: ANTHROPIC_API_KEY is set' };
    if (this.env.OLLAMA_HOST) {
      return { value: 'ollama', source: 'default', from: 'default: OLLAMA_HOST is set and ANTHROPIC_API_KEY is not' };
    }
    return { value: 'anthropic', source: 'default', from: 'built-in default' };
  }
}

function checkedAddress(provider: ProviderName, baseUrl: Sourced<string>): string {
  try {
    return provider === 'ollama' ? normalizeOllamaHost(baseUrl.value) : new URL(baseUrl.value).toString().replace(/\/+$/, '');
  } catch {
    throw new RoostError('CONFIG_ERROR', `${baseUrl.from}: "${baseUrl.value}" is not a valid address`);
  }
}

function flagLayer(flags: AiFlags): Layer {
  const layer: Layer = { source: 'flag', modelFor: {}, baseUrlFor: {} };
  if (flags.provider !== undefined) {
    if (!isProviderName(flags.provider)) {
      throw usageError(`--provider must be one of ${PROVIDER_NAMES.join(', ')} (got "${flags.provider}")`);
    }
    layer.provider = { value: flags.provider, from: '--provider' };
  }
  if (flags.model !== undefined) {
    if (flags.model.trim() === '') throw usageError('--model needs a model name');
    layer.model = { value: flags.model.trim(), from: '--model' };
  }
  return layer;
}

function envLayer(env: NodeJS.ProcessEnv): Layer {
  const layer: Layer = { source: 'env', modelFor: {}, baseUrlFor: {} };
  const provider = env.ROOST_AI_PROVIDER?.trim();
  if (provider) {
    if (!isProviderName(provider)) {
      throw new RoostError('CONFIG_ERROR', `ROOST_AI_PROVIDER must be one of ${PROVIDER_NAMES.join(', ')} (got "${provider}")`);
    }
    layer.provider = { value: provider, from: 'ROOST_AI_PROVIDER' };
  }
  const model = env.ROOST_AI_MODEL?.trim();
  if (model) layer.model = { value: model, from: 'ROOST_AI_MODEL' };
  for (const name of PROVIDER_NAMES) {
    const variable = PROVIDER_DEFAULTS[name].baseUrlEnv;
    const value = env[variable]?.trim();
    if (value) layer.baseUrlFor[name] = { value, from: variable };
  }
  return layer;
}

function fileLayer(file: ConfigFile): Layer {
  const { ai, path } = file;
  const layer: Layer = { source: file.scope, modelFor: {}, baseUrlFor: {} };
  if (ai.provider) layer.provider = { value: ai.provider, from: `${path} [ai] provider` };
  if (ai.model) layer.model = { value: ai.model, from: `${path} [ai] model` };
  if (ai.anthropic?.model) layer.modelFor.anthropic = { value: ai.anthropic.model, from: `${path} [ai.anthropic] model` };
  if (ai.ollama?.model) layer.modelFor.ollama = { value: ai.ollama.model, from: `${path} [ai.ollama] model` };
  if (ai.anthropic?.base_url) layer.baseUrlFor.anthropic = { value: ai.anthropic.base_url, from: `${path} [ai.anthropic] base_url` };
  if (ai.ollama?.host) layer.baseUrlFor.ollama = { value: ai.ollama.host, from: `${path} [ai.ollama] host` };
  return layer;
}
