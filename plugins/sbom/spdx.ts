// An SPDX 2.3 JSON document (https://spdx.github.io/spdx-spec/v2.3/): the project as the described
// package, each locked dependency a package with its purl, and DEPENDS_ON relationships between them.
import { randomUUID } from 'node:crypto';
import type { LockedPackage } from '../../lib/lockfiles/lockfiles.js';
import { purl } from './purl.js';
import type { SbomInput } from './input.js';

const NOASSERTION = 'NOASSERTION';

/** SPDX identifiers allow letters, digits, "." and "-" only. */
const spdxId = (text: string) => `SPDXRef-${text.replace(/[^A-Za-z0-9.-]+/g, '-')}`;

export function spdxDocument(input: SbomInput): Record<string, unknown> {
  const project = spdxId('Project');
  const ids = input.packages.map((pkg, i) => spdxId(`Package-${i + 1}-${pkg.name}`));
  return {
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: input.name,
    documentNamespace: `https://roost.dev/spdx/${encodeURIComponent(input.name)}-${randomUUID()}`,
    creationInfo: { created: input.created, creators: [`Tool: roost-sbom-${input.toolVersion}`] },
    documentDescribes: [project],
    packages: [
      { SPDXID: project, name: input.name, downloadLocation: NOASSERTION, filesAnalyzed: false, primaryPackagePurpose: 'APPLICATION' },
      ...input.packages.map((pkg, i) => spdxPackage(pkg, ids[i]!)),
    ],
    relationships: [
      { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: project },
      ...ids.map((id) => ({ spdxElementId: project, relationshipType: 'DEPENDS_ON', relatedSpdxElement: id })),
    ],
  };
}

function spdxPackage(pkg: LockedPackage, id: string): Record<string, unknown> {
  return {
    SPDXID: id,
    name: pkg.name,
    versionInfo: pkg.version,
    downloadLocation: NOASSERTION,
    filesAnalyzed: false,
    licenseConcluded: NOASSERTION,
    licenseDeclared: NOASSERTION,
    copyrightText: NOASSERTION,
    primaryPackagePurpose: 'LIBRARY',
    externalRefs: [{ referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: purl(pkg) }],
  };
}
