// Package URLs (https://github.com/package-url/purl-spec) of locked packages: the identifier both SBOM
// formats use to tie a component to its registry.
import { normaliseName, type LockedPackage } from '../../lib/lockfiles/lockfiles.js';

const TYPES = { npm: 'npm', 'crates.io': 'cargo', PyPI: 'pypi', Go: 'golang' } as const;

export function purl(pkg: LockedPackage): string {
  // The npm scope is the purl namespace; its "@" is percent-encoded. PyPI names are normalised. A Go
  // module's path is namespace and name (pkg:golang/github.com/gorilla/mux@v1.8.1).
  const name = normaliseName(pkg.ecosystem, pkg.name).split('/').map(encodeURIComponent).join('/');
  return `pkg:${TYPES[pkg.ecosystem]}/${name}@${encodeURIComponent(pkg.version)}`;
}
