// `plugins install`: fetch → validate plugin.toml → approval → build → link commands → post_install →
// registry. Any failure rolls everything back: the checkout and any data it stored are removed and
// the registry is left as it was.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runExec, EXEC_MAX_TIMEOUT_S } from '../../kernel/host/exec.js';
import { readManifest, type Manifest } from '../../kernel/host/manifest.js';
import { RoostError } from '../../protocol/errors.js';
import type { CliContext } from '../context.js';
import { checkCommandNames, checkExecutables, describeRequest } from './checks.js';
import { pluginDataFile, pluginsDir } from './home.js';
import { runHook } from './hooks.js';
import { findEntry, readRegistry, writeRegistry, type RegistryEntry } from './registry.js';
import { describeSource, fetchSource, resolveSource } from './source.js';

export interface InstallOptions {
  home: string;
  /** Approve without asking (--yes). */
  yes: boolean;
  ctx: CliContext;
}

const OUTPUT_TAIL = 2_000;

export async function installPlugin(spec: string, options: InstallOptions): Promise<RegistryEntry> {
  const { home, ctx } = options;
  const source = resolveSource(spec, ctx.cwd);
  await readRegistry(home); // a damaged registry stops the install before anything is fetched
  const root = pluginsDir(home);
  const rootExisted = existsSync(root);
  await mkdir(root, { recursive: true });
  const staging = await mkdtemp(join(root, '.staging-'));
  const cleanups: Array<() => Promise<unknown>> = [() => rm(staging, { recursive: true, force: true })];
  try {
    const checkout = join(staging, 'plugin');
    ctx.log(`roost: fetching ${describeSource(source)}`);
    await fetchSource(source, checkout);
    const staged = await readManifest(checkout);
    const target = join(root, staged.name);
    if (findEntry(await readRegistry(home), staged.name) || existsSync(target)) {
      throw new RoostError('CONFLICT', `${staged.name} is already installed; run roost plugins remove ${staged.name} first`);
    }
    checkCommandNames(staged, await readRegistry(home));
    await approve(staged, describeSource(source), options);
    await build(staged);
    checkExecutables(staged);

    await rename(checkout, target);
    cleanups.push(() => rm(target, { recursive: true, force: true }));
    const dataFile = pluginDataFile(home, staged.name);
    if (!existsSync(dataFile)) cleanups.push(() => rm(dataFile, { force: true }));
    const entry = toEntry({ ...staged, dir: target }, describeSource(source), false);
    if (entry.hooks.post_install) await postInstall(entry, options);

    const registry = await readRegistry(home);
    checkCommandNames(staged, registry); // another install may have landed meanwhile
    await writeRegistry(home, { version: 1, plugins: [...registry.plugins, entry] });
    await rm(staging, { recursive: true, force: true });
    return entry;
  } catch (err) {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    if (!rootExisted) await removeIfEmpty(root);
    throw err;
  }
}

export async function approve(manifest: Manifest, source: string, options: InstallOptions): Promise<void> {
  options.ctx.log(describeRequest(manifest, source));
  if (options.yes) return;
  const approved = await options.ctx.confirm(`Install ${manifest.name} with these capabilities, hooks and sandbox grants?`, { flag: '--yes' });
  if (!approved) throw new RoostError('CANCELLED', `installation of ${manifest.name} declined`);
}

export async function build(manifest: Manifest): Promise<void> {
  if (!manifest.build) return;
  const result = await runExec({ command: manifest.build.command, timeout: EXEC_MAX_TIMEOUT_S }, manifest.dir);
  if (result.code !== 0) {
    const tail = `${result.stdout}${result.stderr}`.trim().slice(-OUTPUT_TAIL);
    throw new RoostError('VALIDATION_ERROR', `build of ${manifest.name} failed (\`${manifest.build.command}\` exited with code ${result.code})${tail ? `:\n${tail}` : ''}`);
  }
}

async function postInstall(entry: RegistryEntry, options: InstallOptions): Promise<void> {
  const result = await runHook(entry, 'post_install', { cwd: entry.dir, log: options.ctx.log }, options.home);
  if (result.code !== 0) {
    const tail = result.output.trim().slice(-OUTPUT_TAIL);
    throw new RoostError('VALIDATION_ERROR', `post_install hook of ${entry.name} failed with code ${result.code}${tail ? `:\n${tail}` : ''}`);
  }
}

export function toEntry(manifest: Manifest, source: string, linked: boolean): RegistryEntry {
  return {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    protocol: manifest.protocol,
    ...(manifest.author ? { author: manifest.author } : {}),
    ...(manifest.filesystemScope ? { filesystemScope: manifest.filesystemScope } : {}),
    dir: manifest.dir,
    source,
    linked,
    capabilities: Object.entries(manifest.capabilities).filter(([, on]) => on).map(([name]) => name).sort(),
    sandbox: manifest.sandbox ?? { env: [], envFiles: [], sockets: [] },
    commands: manifest.commands,
    hooks: manifest.hooks,
    installedAt: new Date().toISOString(),
  };
}

async function removeIfEmpty(dir: string): Promise<void> {
  if ((await readdir(dir).catch(() => ['?'])).length === 0) await rmdir(dir).catch(() => undefined);
}
