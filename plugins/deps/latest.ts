// The latest published version of each dependency. ROOST_DEPS_REGISTRY (a JSON file, file:// or
// http(s) URL) maps "<ecosystem>/<name>" to a version; without it the public registries are asked:
// the npm registry, crates.io, PyPI and the Go module proxy (bases overridable with ROOST_NPM_REGISTRY,
// ROOST_CRATES_API, ROOST_PYPI_API, ROOST_GOPROXY).
import { RoostError } from '../../protocol/errors.js';
import { normaliseName, type Ecosystem, type LockedPackage } from '../../lib/lockfiles/lockfiles.js';
import { getJson, readJsonSource } from './sources.js';

export type LatestLookup = (pkg: LockedPackage) => Promise<string | null>;

const PARALLEL_REQUESTS = 8;

export async function latestVersions(packages: LockedPackage[], env: NodeJS.ProcessEnv): Promise<Map<LockedPackage, string | null>> {
  const lookup = env.ROOST_DEPS_REGISTRY ? await mapLookup(env.ROOST_DEPS_REGISTRY) : publicLookup(env);
  const result = new Map<LockedPackage, string | null>();
  const queue = [...packages];
  const worker = async () => {
    for (let pkg = queue.shift(); pkg; pkg = queue.shift()) result.set(pkg, await lookup(pkg));
  };
  await Promise.all(Array.from({ length: PARALLEL_REQUESTS }, worker));
  return result;
}

async function mapLookup(location: string): Promise<LatestLookup> {
  const data = await readJsonSource(location, 'ROOST_DEPS_REGISTRY');
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new RoostError('VALIDATION_ERROR', 'ROOST_DEPS_REGISTRY must hold a JSON object mapping "<ecosystem>/<name>" to a version');
  }
  const latest = new Map<string, string>();
  for (const [key, version] of Object.entries(data)) {
    const slash = key.indexOf('/');
    if (slash === -1 || typeof version !== 'string') continue;
    const ecosystem = key.slice(0, slash);
    latest.set(`${ecosystem}/${normaliseName(ecosystem, key.slice(slash + 1))}`, version);
  }
  return async (pkg) => latest.get(`${pkg.ecosystem}/${normaliseName(pkg.ecosystem, pkg.name)}`) ?? null;
}

function publicLookup(env: NodeJS.ProcessEnv): LatestLookup {
  const bases: Record<Ecosystem, string> = {
    npm: (env.ROOST_NPM_REGISTRY || 'https://registry.npmjs.org').replace(/\/+$/, ''),
    'crates.io': (env.ROOST_CRATES_API || 'https://crates.io/api/v1').replace(/\/+$/, ''),
    PyPI: (env.ROOST_PYPI_API || 'https://pypi.org/pypi').replace(/\/+$/, ''),
    Go: (env.ROOST_GOPROXY || 'https://proxy.golang.org').replace(/\/+$/, ''),
  };
  return async (pkg) => {
    const base = bases[pkg.ecosystem];
    const url =
      pkg.ecosystem === 'npm' ? `${base}/${pkg.name.replace('/', '%2f')}/latest`
      : pkg.ecosystem === 'crates.io' ? `${base}/crates/${encodeURIComponent(pkg.name)}`
      : pkg.ecosystem === 'Go' ? `${base}/${goModulePath(pkg.name)}/@latest`
      : `${base}/${encodeURIComponent(pkg.name)}/json`;
    const res = await getJson(url, `the ${pkg.ecosystem} registry`);
    if (res.status === 404) return null; // private or yanked: nothing to compare with
    if (res.status !== 200) throw new RoostError('UPSTREAM_ERROR', `the ${pkg.ecosystem} registry answered HTTP ${res.status} for ${pkg.name}`);
    const body = res.body as Record<string, any> | null;
    const version =
      pkg.ecosystem === 'npm' ? body?.version
      : pkg.ecosystem === 'crates.io' ? body?.crate?.max_stable_version ?? body?.crate?.max_version
      : pkg.ecosystem === 'Go' ? body?.Version
      : body?.info?.version;
    return typeof version === 'string' ? version : null;
  };
}

/** The module proxy's case-encoding: each capital letter as "!" and its lower case (golang.org/ref/mod#goproxy-protocol). */
function goModulePath(module: string): string {
  return module.split('/').map((part) => encodeURIComponent(part.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`))).join('/');
}
