// A CycloneDX 1.5 JSON BOM (https://cyclonedx.org/docs/1.5/json/): the project as metadata.component,
// each locked dependency a library component keyed by its purl, and the project's dependency list.
import { randomUUID } from 'node:crypto';
import type { LockedPackage } from '../../lib/lockfiles/lockfiles.js';
import { purl } from './purl.js';
import type { SbomInput } from './input.js';

export function cycloneDxDocument(input: SbomInput): Record<string, unknown> {
  const refs = input.packages.map(purl);
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: {
      timestamp: input.created,
      tools: { components: [{ type: 'application', name: 'roost', version: input.toolVersion }] },
      component: { type: 'application', 'bom-ref': 'project', name: input.name },
    },
    components: input.packages.map((pkg, i) => component(pkg, refs[i]!)),
    dependencies: [{ ref: 'project', dependsOn: refs }],
  };
}

function component(pkg: LockedPackage, ref: string): Record<string, unknown> {
  // An npm scope is the component's group.
  const scoped = pkg.ecosystem === 'npm' && pkg.name.startsWith('@') ? pkg.name.split('/') : undefined;
  return {
    type: 'library',
    'bom-ref': ref,
    ...(scoped ? { group: scoped[0], name: scoped.slice(1).join('/') } : { name: pkg.name }),
    version: pkg.version,
    purl: ref,
  };
}
