// `plugins remove <name>`: drop the registry entry first (so it never points at a missing folder),
// then the checkout. A linked default's in-tree folder is never touched. --purge also drops its data.
import { rm } from 'node:fs/promises';
import { relative } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { pluginDataFile, pluginsDir } from './home.js';
import { findEntry, readRegistry, writeRegistry, type RegistryEntry } from './registry.js';

export async function removePlugin(home: string, name: string, options: { purge: boolean }): Promise<RegistryEntry> {
  const registry = await readRegistry(home);
  const entry = findEntry(registry, name);
  if (!entry) throw new RoostError('NOT_FOUND', `no plugin named ${name} is installed (see roost plugins list)`);
  await writeRegistry(home, { version: 1, plugins: registry.plugins.filter((p) => p !== entry) });
  const inside = relative(pluginsDir(home), entry.dir);
  if (!entry.linked && inside !== '' && !inside.startsWith('..')) await rm(entry.dir, { recursive: true, force: true });
  if (options.purge) await rm(pluginDataFile(home, entry.name), { force: true });
  return entry;
}
