// Declared licenses of installed packages, keyed "<ecosystem>/<normalised name>@<version>": npm's
// node_modules/**/package.json (`license`, or the old `licenses` array) and Python's
// .venv / venv site-packages/*.dist-info/METADATA (License-Expression, License, or the license classifier),
// the crates cargo unpacked in $CARGO_HOME/registry/src (Cargo.toml `package.license`), and the Go
// modules in the module cache ($GOMODCACHE, else $GOPATH/pkg/mod, else ~/go/pkg/mod), whose LICENSE text
// is recognised (license-text.ts). Lockfiles do not carry licenses, so a dependency that is not installed
// has none.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { normaliseName, type LockedPackage } from '../../lib/lockfiles/lockfiles.js';
import { licenseOfText } from './license-text.js';

export const licenseKey = (ecosystem: string, name: string, version: string) => `${ecosystem}/${normaliseName(ecosystem, name)}@${version}`;

export async function installedLicenses(root: string, packages: LockedPackage[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  await readGoModCache(goModCache(), packages.filter((p) => p.ecosystem === 'Go'), found);
  await readNodeModules(join(root, 'node_modules'), found);
  for (const venv of ['.venv', 'venv']) await readSitePackages(join(root, venv), found);
  await readCargoRegistry(join(process.env.CARGO_HOME || join(homedir(), '.cargo'), 'registry', 'src'), found);
  return found;
}

async function readNodeModules(dir: string, found: Map<string, string>): Promise<void> {
  if (!existsSync(dir)) return;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    // pnpm keeps every package in .pnpm/<name>@<version>/node_modules and links to them (links are not
    // followed: they lead there, or to workspace packages, which are not locked dependencies).
    if (entry.name === '.pnpm' && entry.isDirectory()) {
      for (const store of await readdir(join(dir, entry.name))) await readNodeModules(join(dir, entry.name, store, 'node_modules'), found);
      continue;
    }
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    if (entry.name.startsWith('@')) {
      await readNodeModules(join(dir, entry.name), found);
      continue;
    }
    const pkgDir = join(dir, entry.name);
    const manifest = await readFile(join(pkgDir, 'package.json'), 'utf8').then((t) => JSON.parse(t) as NpmManifest, () => undefined);
    const license = manifest && npmLicense(manifest);
    if (manifest?.name && manifest.version && license) found.set(licenseKey('npm', manifest.name, manifest.version), license);
    await readNodeModules(join(pkgDir, 'node_modules'), found);
  }
}

interface NpmManifest {
  name?: string;
  version?: string;
  license?: string | { type?: string };
  licenses?: Array<{ type?: string }>;
}

function npmLicense(m: NpmManifest): string | undefined {
  if (typeof m.license === 'string') return m.license;
  if (typeof m.license?.type === 'string') return m.license.type;
  // The deprecated array form means any of them may be chosen.
  const types = (m.licenses ?? []).map((l) => l.type).filter((t): t is string => typeof t === 'string');
  return types.length > 0 ? types.join(' OR ') : undefined;
}

async function readSitePackages(venv: string, found: Map<string, string>): Promise<void> {
  const lib = join(venv, 'lib');
  if (!existsSync(lib)) return;
  for (const python of await readdir(lib)) {
    const site = join(lib, python, 'site-packages');
    if (!existsSync(site)) continue;
    for (const info of (await readdir(site)).filter((d) => d.endsWith('.dist-info'))) {
      const text = await readFile(join(site, info, 'METADATA'), 'utf8').catch(() => '');
      const header = (key: string) => new RegExp(`^${key}: *(.+)$`, 'm').exec(text)?.[1]?.trim();
      const name = header('Name');
      const version = header('Version');
      const classifier = /^Classifier: License :: (?:OSI Approved :: )?(.+)$/m.exec(text)?.[1]?.trim();
      const license = header('License-Expression') ?? (header('License') && header('License') !== 'UNKNOWN' ? header('License') : undefined) ?? classifier;
      if (name && version && license) found.set(licenseKey('PyPI', name, version), license);
    }
  }
}

/** Every registry index cargo has used has its own folder of unpacked "<name>-<version>" crates. */
async function readCargoRegistry(src: string, found: Map<string, string>): Promise<void> {
  if (!existsSync(src)) return;
  for (const index of await readdir(src)) {
    for (const crate of await readdir(join(src, index)).catch(() => [])) {
      const text = await readFile(join(src, index, crate, 'Cargo.toml'), 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      let pkg: { name?: unknown; version?: unknown; license?: unknown } | undefined;
      try {
        pkg = (parseToml(text) as { package?: typeof pkg }).package;
      } catch {
        continue; // a crate whose manifest this parser cannot read is simply not known
      }
      if (typeof pkg?.name === 'string' && typeof pkg.version === 'string' && typeof pkg.license === 'string') {
        found.set(licenseKey('crates.io', pkg.name, pkg.version), pkg.license);
      }
    }
  }
}

function goModCache(): string {
  if (process.env.GOMODCACHE) return process.env.GOMODCACHE;
  return join(process.env.GOPATH?.split(':')[0] || join(homedir(), 'go'), 'pkg', 'mod');
}

/** Modules are unpacked at <cache>/<path with capitals as !lower>@<version>; the LICENSE file says. */
async function readGoModCache(cache: string, modules: LockedPackage[], found: Map<string, string>): Promise<void> {
  if (modules.length === 0 || !existsSync(cache)) return;
  await Promise.all(modules.map(async (m) => {
    const dir = join(cache, `${m.name.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`)}@${m.version}`);
    const file = (await readdir(dir).catch(() => [] as string[])).find((name) => /^(?:LICEN[CS]E|COPYING)(?:\.(?:md|txt))?$/i.test(name));
    const text = file && (await readFile(join(dir, file), 'utf8').catch(() => ''));
    const license = text ? licenseOfText(text) : undefined;
    if (license) found.set(licenseKey('Go', m.name, m.version), license);
  }));
}
