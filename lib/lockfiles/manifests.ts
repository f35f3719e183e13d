// Dependencies a project declares where it locks none: Go's go.mod (since Go 1.17 it requires every
// module the build needs, at the version the build uses, so it is read like a lockfile), and, for an
// ecosystem with no lockfile at all (most npm and Rust libraries, Python projects not locked),
// package.json, Cargo.toml and pyproject.toml: each range read as the lowest version it allows, which
// is what a lockfile-less check can honestly compare (the entry says `declared`).
import semver from 'semver';
import { parse as parseToml } from 'smol-toml';

export interface Declared {
  name: string;
  version: string;
}

/** `require x v1.2.3` and `require ( … )` blocks; `// indirect` modules are part of the build too. */
export function readGoMod(text: string): Declared[] {
  const found: Declared[] = [];
  let inBlock = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inBlock) {
      if (line === ')') inBlock = false;
      else pushModule(line, found);
    } else if (/^require\s*\($/.test(line)) {
      inBlock = true;
    } else if (line.startsWith('require ')) {
      pushModule(line.slice('require '.length), found);
    }
  }
  return found;
}

function pushModule(line: string, found: Declared[]): void {
  const [name, version] = line.split(/\s+/);
  if (name && version?.startsWith('v')) found.push({ name, version });
}

/** dependencies, devDependencies and optionalDependencies of a registry (not file:, git, workspace:). */
export function readPackageJson(text: string): Declared[] {
  const data = JSON.parse(text) as Record<string, Record<string, unknown> | undefined>;
  const ranges = { ...data.optionalDependencies, ...data.devDependencies, ...data.dependencies };
  return Object.entries(ranges).flatMap(([name, range]) => lowest(name, typeof range === 'string' ? range : ''));
}

/** [dependencies], [dev-dependencies], [build-dependencies] (and their target-specific tables) from crates.io. */
export function readCargoToml(text: string): Declared[] {
  const data = parseToml(text) as Record<string, unknown>;
  const tables = [data, ...Object.values((data.target ?? {}) as Record<string, Record<string, unknown>>)];
  return tables.flatMap((table) =>
    ['dependencies', 'dev-dependencies', 'build-dependencies'].flatMap((kind) =>
      Object.entries((table[kind] ?? {}) as Record<string, unknown>).flatMap(([name, spec]) => {
        const dep = typeof spec === 'string' ? { version: spec } : (spec as { version?: unknown; path?: unknown; git?: unknown; package?: unknown; workspace?: unknown });
        if (typeof dep.version !== 'string' || dep.path !== undefined || dep.git !== undefined || dep.workspace !== undefined) return [];
        return lowest(typeof dep.package === 'string' ? dep.package : name, cargoRange(dep.version));
      }),
    ),
  );
}

/** PEP 621 [project] dependencies (and optional ones): `name>=1.2`, `name==1.2.3`, `name~=1.2`. */
export function readPyproject(text: string): Declared[] {
  const project = ((parseToml(text) as { project?: { dependencies?: unknown; 'optional-dependencies'?: Record<string, unknown> } }).project) ?? {};
  const specs = [project.dependencies, ...Object.values(project['optional-dependencies'] ?? {})].flatMap((list) => (Array.isArray(list) ? list : []));
  return specs.flatMap((spec) => {
    const m = typeof spec === 'string' ? /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*(?:\(?\s*(?:===?|>=|~=)\s*([0-9][^\s,;)]*))?/.exec(spec) : null;
    return m?.[2] ? [{ name: m[1]!, version: m[2] }] : [];
  });
}

/** Cargo reads "1.2" as "^1.2" and "a, b" as both. */
function cargoRange(requirement: string): string {
  return requirement.split(',').map((part) => part.trim()).map((part) => (/^\d/.test(part) ? `^${part}` : part)).join(' ');
}

function lowest(name: string, range: string): Declared[] {
  if (!semver.validRange(range)) return [];
  const version = semver.minVersion(range);
  return version ? [{ name, version: version.version }] : [];
}
