// The deploy targets of a project: the [deploy.<target>] tables of roost.toml at its root.
//
//   [deploy.staging]
//   description = "Staging on fly.io"
//   commands = ["npm run build", "fly deploy --app shop-staging"]   # or run = "one command"
//   env = { APP_ENV = "staging" }
//   cwd = "."            # relative to the project root
//   timeout = 1800       # seconds per command (default 3600, at most 86400)
//   confirm = false      # ask before deploying; true by default for production and prod
import { readFile } from 'node:fs/promises';
import { parse as parseToml } from 'smol-toml';
import { RoostError } from '../../protocol/errors.js';

export interface DeployTarget {
  name: string;
  description: string;
  commands: string[];
  env: Record<string, string>;
  cwd: string;
  timeoutS: number;
  confirm: boolean;
}

export const DEFAULT_TIMEOUT_S = 3_600;
export const MAX_TIMEOUT_S = 86_400;
const PRODUCTION_NAMES = new Set(['production', 'prod']);
const TARGET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEYS = new Set(['description', 'commands', 'run', 'env', 'cwd', 'timeout', 'confirm']);

/** The targets in `file`, in the order written; none when the file or its [deploy] table is absent. */
export async function readTargets(file: string): Promise<DeployTarget[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw invalid(file, `is not valid TOML: ${(err as Error).message.split('\n')[0]}`);
  }
  const table = parsed.deploy;
  if (table === undefined) return [];
  if (!isTable(table)) throw invalid(file, '[deploy] must be a table of targets, [deploy.<name>]');
  return Object.entries(table).map(([name, value]) => toTarget(file, name, value));
}

function toTarget(file: string, name: string, value: unknown): DeployTarget {
  const where = `[deploy.${name}]`;
  if (!TARGET_NAME.test(name)) throw invalid(file, `${where}: a target name is letters, digits, '.', '_' and '-' (at most 64)`);
  if (!isTable(value)) throw invalid(file, `${where} must be a table`);
  const unknown = Object.keys(value).filter((key) => !KEYS.has(key));
  if (unknown.length > 0) throw invalid(file, `${where}: unknown key ${unknown.join(', ')} (known: ${[...KEYS].join(', ')})`);
  if (value.run !== undefined && value.commands !== undefined) throw invalid(file, `${where}: give run or commands, not both`);
  const commands = value.run !== undefined ? [value.run] : value.commands;
  if (!Array.isArray(commands) || commands.length === 0 || commands.some((c) => typeof c !== 'string' || c.trim() === '')) {
    throw invalid(file, `${where}: needs run = "<command>" or commands = ["<command>", …] of non-empty strings`);
  }
  const env = value.env ?? {};
  if (!isTable(env)) throw invalid(file, `${where}.env must be a table of strings`);
  for (const [key, v] of Object.entries(env)) {
    if (!ENV_NAME.test(key)) throw invalid(file, `${where}.env: "${key}" is not a variable name`);
    if (typeof v !== 'string') throw invalid(file, `${where}.env.${key} must be a string`);
  }
  const timeout = value.timeout ?? DEFAULT_TIMEOUT_S;
  if (typeof timeout !== 'number' || !(timeout > 0) || timeout > MAX_TIMEOUT_S) throw invalid(file, `${where}.timeout must be seconds, above 0 and at most ${MAX_TIMEOUT_S}`);
  for (const key of ['description', 'cwd'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') throw invalid(file, `${where}.${key} must be a string`);
  }
  if (value.confirm !== undefined && typeof value.confirm !== 'boolean') throw invalid(file, `${where}.confirm must be true or false`);
  return {
    name,
    description: (value.description as string | undefined) ?? '',
    commands: commands as string[],
    env: env as Record<string, string>,
    cwd: (value.cwd as string | undefined) ?? '.',
    timeoutS: timeout,
    confirm: (value.confirm as boolean | undefined) ?? PRODUCTION_NAMES.has(name),
  };
}

/** The command as the shell runs it: the target's variables exported first, each value quoted. */
export function withEnv(command: string, env: Record<string, string>): string {
  const exports = Object.entries(env).map(([key, value]) => `export ${key}=${shellQuote(value)}; `).join('');
  return `${exports}${command}`;
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function invalid(file: string, why: string): RoostError {
  return new RoostError('USAGE', `${file} ${why}`);
}
