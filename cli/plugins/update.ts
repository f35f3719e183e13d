// `plugins update [name]`: fetch a plugin again from where it was installed, ask again only when it
// now asks for more than was approved (capabilities, hooks, commands or sandbox grants), build, then swap the checkout.
// The stored values stay; post_install does not run again. A failure leaves the old version in place.
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readManifest, type Manifest } from '../../kernel/host/manifest.js';
import { RoostError } from '../../protocol/errors.js';
import { checkCommandNames, checkExecutables } from './checks.js';
import { pluginsDir } from './home.js';
import { approve, build, toEntry, type InstallOptions } from './install.js';
import { findEntry, readRegistry, writeRegistry, type RegistryEntry } from './registry.js';
import { fetchSource, resolveSource } from './source.js';

export interface UpdateOutcome {
  name: string;
  from: string;
  to: string;
  /** What it asks for beyond the previous approval; empty when nothing was asked. */
  newlyRequested: string[];
}

export async function updatePlugin(name: string, options: InstallOptions): Promise<UpdateOutcome> {
  const { home, ctx } = options;
  const current = findEntry(await readRegistry(home), name);
  if (!current) throw new RoostError('NOT_FOUND', `no plugin named ${name} is installed (see roost plugins list)`);
  if (current.linked) throw new RoostError('CONFLICT', `${current.name} ships with roost and is updated with it`);
  const staging = await mkdtemp(join(pluginsDir(home), '.staging-'));
  const previous = join(staging, 'previous');
  let swapped = false;
  try {
    const checkout = join(staging, 'plugin');
    ctx.log(`roost: fetching ${current.source}`);
    await fetchSource(resolveSource(current.source, ctx.cwd), checkout);
    const staged = await readManifest(checkout);
    if (staged.name !== current.name) throw new RoostError('VALIDATION_ERROR', `${current.source} now holds ${staged.name}, not ${current.name}`);
    checkCommandNames(staged, await readRegistry(home));
    const newlyRequested = beyondApproval(staged, current);
    if (newlyRequested.length > 0) {
      ctx.log(`roost: ${current.name} ${staged.version} asks for more than was approved: ${newlyRequested.join(', ')}`);
      await approve(staged, current.source, options);
    }
    await build(staged);
    checkExecutables(staged);
    await rename(current.dir, previous);
    await rename(checkout, current.dir);
    swapped = true;
    const entry: RegistryEntry = toEntry({ ...staged, dir: current.dir }, current.source, false);
    const registry = await readRegistry(home);
    await writeRegistry(home, { version: 1, plugins: registry.plugins.map((p) => (p.name === current.name ? entry : p)) });
    await rm(staging, { recursive: true, force: true });
    return { name: current.name, from: current.version, to: staged.version, newlyRequested };
  } catch (err) {
    if (swapped) {
      await rm(current.dir, { recursive: true, force: true });
      await rename(previous, current.dir);
    }
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
}

/** Capabilities, hooks, commands and sandbox grants the new manifest has that the approved entry does not. */
function beyondApproval(manifest: Manifest, entry: RegistryEntry): string[] {
  const granted = new Set(entry.capabilities);
  const capabilities = Object.entries(manifest.capabilities).filter(([c, on]) => on && !granted.has(c)).map(([c]) => `capability ${c}`);
  const scope = manifest.filesystemScope && entry.filesystemScope && manifest.filesystemScope !== entry.filesystemScope ? [`filesystem scope ${manifest.filesystemScope}`] : [];
  const hooks = Object.entries(manifest.hooks).filter(([kind, path]) => entry.hooks[kind as keyof RegistryEntry['hooks']] !== path).map(([kind]) => `hook ${kind}`);
  const known = new Set(entry.commands.map((c) => c.name));
  const commands = manifest.commands.filter((c) => !known.has(c.name)).map((c) => `command ${c.name}`);
  const protocol = manifest.protocol !== (entry.protocol ?? manifest.protocol) ? [`protocol ${manifest.protocol}`] : [];
  const sandbox = ([['env', 'environment variable'], ['envFiles', 'file named by'], ['sockets', 'unix socket']] as const).flatMap(([key, what]) => {
    const approved = new Set(entry.sandbox?.[key] ?? []);
    return (manifest.sandbox?.[key] ?? []).filter((item) => !approved.has(item)).map((item) => `${what} ${item}`);
  });
  return [...capabilities, ...scope, ...hooks, ...commands, ...protocol, ...sandbox];
}
