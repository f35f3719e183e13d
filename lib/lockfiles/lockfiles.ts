// Locked dependencies read from the lockfiles at a project root: Cargo.lock (Rust), package-lock.json,
// pnpm-lock.yaml, yarn.lock and bun.lock (Node), poetry.lock, uv.lock and pinned requirements.txt
// (Python), go.mod (Go). An ecosystem with none of them falls back to what its manifest declares
// (manifests.ts). Ecosystem names are OSV's.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { RoostError } from '../../protocol/errors.js';
import { readCargoToml, readGoMod, readPackageJson, readPyproject } from './manifests.js';
import { readBunLock, readPnpmLock, readYarnLock } from './node-lockfiles.js';

export type Ecosystem = 'crates.io' | 'npm' | 'PyPI' | 'Go';

export interface LockedPackage {
  ecosystem: Ecosystem;
  name: string;
  version: string;
  lockfile: string;
}

interface LockfileReader {
  file: string;
  ecosystem: Ecosystem;
  read(text: string): Array<{ name: string; version: string }>;
}

type TomlPackage = { name?: unknown; version?: unknown; source?: unknown };

function tomlPackages(text: string): TomlPackage[] {
  const data = parseToml(text) as { package?: TomlPackage[] };
  return Array.isArray(data.package) ? data.package : [];
}

const named = (p: TomlPackage): p is { name: string; version: string; source?: unknown } =>
  typeof p.name === 'string' && typeof p.version === 'string';

export const READERS: LockfileReader[] = [
  {
    file: 'Cargo.lock',
    ecosystem: 'crates.io',
    // Workspace members have no source; git and path dependencies are not on crates.io.
    read: (text) => tomlPackages(text).filter(named).filter((p) => typeof p.source === 'string' && p.source.startsWith('registry+')),
  },
  { file: 'package-lock.json', ecosystem: 'npm', read: readPackageLock },
  { file: 'pnpm-lock.yaml', ecosystem: 'npm', read: readPnpmLock },
  { file: 'yarn.lock', ecosystem: 'npm', read: readYarnLock },
  { file: 'bun.lock', ecosystem: 'npm', read: readBunLock },
  { file: 'poetry.lock', ecosystem: 'PyPI', read: (text) => tomlPackages(text).filter(named) },
  {
    file: 'uv.lock',
    ecosystem: 'PyPI',
    // The project itself (and local path packages) are locked as editable / virtual / directory sources.
    read: (text) => tomlPackages(text).filter(named).filter((p) => !isLocalUvSource(p.source)),
  },
  { file: 'requirements.txt', ecosystem: 'PyPI', read: readRequirements },
  { file: 'go.mod', ecosystem: 'Go', read: readGoMod },
];

/** Read only for an ecosystem none of READERS found: the lowest versions the declared ranges allow. */
export const MANIFESTS: LockfileReader[] = [
  { file: 'package.json', ecosystem: 'npm', read: readPackageJson },
  { file: 'Cargo.toml', ecosystem: 'crates.io', read: readCargoToml },
  { file: 'pyproject.toml', ecosystem: 'PyPI', read: readPyproject },
];

/** What was read: a lockfile, or (`declared`) a manifest standing in for a missing one. */
export interface LockfileRead {
  file: string;
  ecosystem: Ecosystem;
  packages: number;
  declared?: true;
}

function isLocalUvSource(source: unknown): boolean {
  return typeof source === 'object' && source !== null && ['editable', 'virtual', 'directory', 'path'].some((k) => k in source);
}

function readPackageLock(text: string): Array<{ name: string; version: string }> {
  const data = JSON.parse(text) as {
    packages?: Record<string, { version?: string; link?: boolean }>;
    dependencies?: Record<string, V1Dependency>;
  };
  if (data.packages) {
    return Object.entries(data.packages)
      .filter(([path, p]) => path.includes('node_modules/') && !p.link && typeof p.version === 'string')
      .map(([path, p]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), version: p.version! }));
  }
  const found: Array<{ name: string; version: string }> = [];
  const walk = (deps: Record<string, V1Dependency> | undefined) => {
    for (const [name, dep] of Object.entries(deps ?? {})) {
      if (typeof dep.version === 'string' && !dep.version.startsWith('file:')) found.push({ name, version: dep.version });
      walk(dep.dependencies);
    }
  };
  walk(data.dependencies);
  return found;
}

interface V1Dependency {
  version?: string;
  dependencies?: Record<string, V1Dependency>;
}

const PIN = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*===?\s*([^\s;#,]+)\s*(?:[;#].*)?$/;

/** Only exact pins (name==version) are locked versions; ranges and options are skipped. */
function readRequirements(text: string): Array<{ name: string; version: string }> {
  return text.split(/\r?\n/).flatMap((line) => {
    const match = PIN.exec(line.trim());
    return match ? [{ name: match[1]!, version: match[2]! }] : [];
  });
}

/** Python names compare normalised (PEP 503). */
export function normaliseName(ecosystem: string, name: string): string {
  return ecosystem === 'PyPI' ? name.toLowerCase().replace(/[-_.]+/g, '-') : name;
}

export async function readLockfiles(root: string): Promise<{ lockfiles: LockfileRead[]; packages: LockedPackage[] }> {
  const lockfiles: LockfileRead[] = [];
  const seen = new Set<string>();
  const packages: LockedPackage[] = [];
  const readAll = async (readers: LockfileReader[], declared: boolean) => {
    for (const reader of readers) {
      const path = join(root, reader.file);
      if (!existsSync(path)) continue;
      let found: Array<{ name: string; version: string }>;
      try {
        found = reader.read(await readFile(path, 'utf8'));
      } catch (err) {
        throw new RoostError('VALIDATION_ERROR', `${reader.file} cannot be read: ${(err as Error).message.split('\n')[0]}`);
      }
      lockfiles.push({ file: reader.file, ecosystem: reader.ecosystem, packages: found.length, ...(declared ? { declared: true as const } : {}) });
      for (const { name, version } of found) {
        const key = `${reader.ecosystem}/${normaliseName(reader.ecosystem, name)}@${version}`;
        if (seen.has(key)) continue;
        seen.add(key);
        packages.push({ ecosystem: reader.ecosystem, name, version, lockfile: reader.file });
      }
    }
  };
  await readAll(READERS, false);
  const locked = new Set(lockfiles.map((l) => l.ecosystem));
  await readAll(MANIFESTS.filter((m) => !locked.has(m.ecosystem)), true);
  packages.sort((a, b) => a.ecosystem.localeCompare(b.ecosystem) || a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
  return { lockfiles, packages };
}

/** For "nothing to read" errors: every file looked for. */
export const LOOKED_FOR = [...READERS, ...MANIFESTS].map((r) => r.file).join(', ');
