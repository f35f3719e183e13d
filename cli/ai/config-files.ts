// Reads the [ai] table of Roost's config files: `.roost/config.toml` in the project root and
// `$ROOST_HOME/config.toml`. Other tables belong to other features and are ignored here.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { parse as parseToml } from 'smol-toml';
import { RoostError } from '../../protocol/errors.js';
import { PROVIDER_NAMES, type ProviderName } from '../../lib/providers/types.js';

export interface AiTable {
  provider?: ProviderName;
  model?: string;
  anthropic?: { model?: string; base_url?: string };
  ollama?: { model?: string; host?: string };
}

export interface ConfigFile {
  scope: 'project' | 'home';
  path: string;
  exists: boolean;
  ai: AiTable;
}

const nonEmpty = { type: 'string', minLength: 1 };
const aiSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    provider: { enum: [...PROVIDER_NAMES] },
    model: nonEmpty,
    anthropic: { type: 'object', additionalProperties: false, properties: { model: nonEmpty, base_url: nonEmpty } },
    ollama: { type: 'object', additionalProperties: false, properties: { model: nonEmpty, host: nonEmpty } },
  },
};
const validateAi = new Ajv({ allErrors: true }).compile<AiTable>(aiSchema);

export function roostHome(env: NodeJS.ProcessEnv): string {
  return resolve(env.ROOST_HOME || join(homedir(), '.roost'));
}

/** The project file first (it wins), then the home file; the project one is skipped when it is the home one. */
export async function loadConfigFiles(projectRoot: string, env: NodeJS.ProcessEnv): Promise<ConfigFile[]> {
  const homePath = join(roostHome(env), 'config.toml');
  const projectPath = join(resolve(projectRoot), '.roost', 'config.toml');
  const files = projectPath === homePath ? [] : [await loadConfigFile('project', projectPath)];
  files.push(await loadConfigFile('home', homePath));
  return files;
}

async function loadConfigFile(scope: ConfigFile['scope'], path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { scope, path, exists: false, ai: {} };
    throw new RoostError('CONFIG_ERROR', `cannot read ${path}: ${(err as Error).message}`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new RoostError('CONFIG_ERROR', `${path} is not valid TOML: ${(err as Error).message.split('\n')[0]}`);
  }
  const ai = doc.ai ?? {};
  if (!validateAi(ai)) {
    const problems = (validateAi.errors ?? []).map((e) => {
      const where = `ai${e.instancePath.replaceAll('/', '.')}`;
      if (e.keyword === 'additionalProperties') return `${where}: unknown key "${String(e.params.additionalProperty)}"`;
      if (e.keyword === 'enum') return `${where}: must be one of ${PROVIDER_NAMES.join(', ')}`;
      return `${where}: ${e.message}`;
    });
    throw new RoostError('CONFIG_ERROR', `${path}: ${problems.join('; ')}`);
  }
  return { scope, path, exists: true, ai };
}
