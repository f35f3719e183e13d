// The plugins that ship inside roost: `plugins install --defaults` links the seed's default set of
// three (DEFAULT_PLUGINS), `plugins install --community` the community commands (COMMUNITY_PLUGINS).
// They are linked, not cloned: the registry points at their in-tree folder and their compiled
// commands run from dist/. They come with roost, so no approval is asked.
import { readManifest } from '../../kernel/host/manifest.js';
import { bundledDir } from './bundled.js';
import { checkCommandNames, checkExecutables } from './checks.js';
import { toEntry } from './install.js';
import { readRegistry, writeRegistry, type RegistryEntry } from './registry.js';

export const DEFAULT_PLUGINS = ['deps', 'metrics', 'github'] as const;
export const COMMUNITY_PLUGINS = ['secrets', 'sbom', 'license', 'context', 'coverage', 'notify', 'deploy'] as const;

export interface DefaultsResult {
  installed: RegistryEntry[];
  /** Defaults that were already installed; their entry is refreshed in place. */
  refreshed: RegistryEntry[];
}

export async function installBundled(home: string, names: readonly string[], log: (line: string) => void): Promise<DefaultsResult> {
  const registry = await readRegistry(home);
  const result: DefaultsResult = { installed: [], refreshed: [] };
  let plugins = registry.plugins;
  for (const name of names) {
    const manifest = await readManifest(bundledDir(name));
    checkCommandNames(manifest, { version: 1, plugins });
    checkExecutables(manifest);
    const entry = toEntry(manifest, `builtin:${name}`, true);
    const existing = plugins.find((p) => p.name === manifest.name);
    if (existing && !existing.linked) {
      log(`roost: ${manifest.name} is installed from ${existing.source}; leaving it as it is`);
      continue;
    }
    (existing ? result.refreshed : result.installed).push(entry);
    plugins = [...plugins.filter((p) => p.name !== manifest.name), existing ? { ...entry, installedAt: existing.installedAt } : entry];
    log(`roost: ${existing ? 'refreshed' : 'installed'} ${manifest.name} ${manifest.version} (commands: ${manifest.commands.map((c) => c.name).join(', ')})`);
  }
  await writeRegistry(home, { version: 1, plugins });
  return result;
}
