// The registry of installed plugins: $ROOST_HOME/plugins/registry.json, always replaced atomically.
// Each entry records what the user approved at install time (capabilities, commands, hooks), so a run
// never grants more than was shown, whatever the plugin's checkout says later.
import { readFile } from 'node:fs/promises';
import type { FilesystemScope, Manifest, PluginProtocol, PluginSandbox } from '../../kernel/host/manifest.js';
import { PROTOCOL } from '../../protocol/messages.js';
import { RoostError } from '../../protocol/errors.js';
import { schemaValidator, describeErrors } from '../../protocol/validate.js';
import { writeJsonAtomic } from './atomic.js';
import { relinked } from './bundled.js';
import { registryFile } from './home.js';

export interface PluginCommand {
  name: string;
  description: string;
  binary: string;
}

export interface RegistryEntry {
  /** The manifest name (cli-plugin-<name> by convention; fledge plugins keep theirs). */
  name: string;
  version: string;
  description: string;
  /** How roost talks to it; entries written before plain and fledge plugins existed are cli-v1. */
  protocol?: PluginProtocol;
  author?: string;
  /** Where the `filesystem` grant lets it write. */
  filesystemScope?: FilesystemScope;
  /** The plugin's folder: its checkout under plugins/, or the in-tree folder of a linked default. */
  dir: string;
  /** What was installed from: a git URL, a path, or "builtin:<name>". */
  source: string;
  linked: boolean;
  /** Capabilities granted at install (those the manifest asked for and the user approved). */
  capabilities: string[];
  /** Environment variables, files named by them and sockets granted at install ([sandbox] of the manifest). */
  sandbox?: PluginSandbox;
  commands: PluginCommand[];
  hooks: { post_install?: string; pre_push?: string };
  installedAt: string;
}

export interface Registry {
  version: 1;
  plugins: RegistryEntry[];
}

export async function readRegistry(home: string): Promise<Registry> {
  const file = registryFile(home);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, plugins: [] };
    throw err;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new RoostError('VALIDATION_ERROR', `${file} is not valid JSON; repair it or remove it and reinstall the plugins`);
  }
  const check = schemaValidator('plugin-registry.json');
  if (!check(data)) {
    throw new RoostError('VALIDATION_ERROR', `${file} is damaged (${describeErrors(check.errors ?? [], 'registry')}); repair it or remove it and reinstall the plugins`);
  }
  const registry = data as Registry;
  return { ...registry, plugins: registry.plugins.map(relinked) };
}

export function writeRegistry(home: string, registry: Registry): Promise<void> {
  const plugins = [...registry.plugins].sort((a, b) => a.name.localeCompare(b.name));
  return writeJsonAtomic(registryFile(home), { version: 1, plugins });
}

/** Finds a plugin by its manifest name (cli-plugin-deps, fledge-plugin-x) or its short name (deps, x). */
export function findEntry(registry: Registry, name: string): RegistryEntry | undefined {
  const names = [name, ...NAME_PREFIXES.map((prefix) => `${prefix}${name}`)];
  return names.map((n) => registry.plugins.find((p) => p.name === n)).find(Boolean);
}

const NAME_PREFIXES = ['cli-plugin-', 'fledge-plugin-', 'fledge-'];

/**
 * The entry with its [sandbox] grant. A built-in linked by a roost from before [sandbox] has none
 * recorded; its grant comes with roost, from its in-tree manifest (no approval is asked for built-ins).
 */
export async function withSandboxGrant(entry: RegistryEntry): Promise<RegistryEntry> {
  if (entry.sandbox || !entry.linked) return entry;
  const { readManifest } = await import('../../kernel/host/manifest.js'); // TOML only for such an old entry
  return { ...entry, sandbox: (await readManifest(entry.dir)).sandbox ?? { env: [], envFiles: [], sockets: [] } };
}

/** The manifest PluginProcess runs with: the approved state recorded at install. */
export function entryManifest(entry: RegistryEntry): Manifest {
  return {
    name: entry.name,
    version: entry.version,
    description: entry.description,
    protocol: entry.protocol ?? PROTOCOL,
    ...(entry.filesystemScope ? { filesystemScope: entry.filesystemScope } : {}),
    dir: entry.dir,
    capabilities: Object.fromEntries(entry.capabilities.map((c) => [c, true])),
    ...(entry.sandbox ? { sandbox: entry.sandbox } : {}),
    commands: entry.commands,
    hooks: entry.hooks,
  };
}
