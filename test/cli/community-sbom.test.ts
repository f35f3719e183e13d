// The default sbom plugin on a project with npm, Rust and Python lockfiles: SPDX 2.3 and CycloneDX 1.5
// documents validated against the formats' JSON Schemas (subsets written from the specifications, in
// test/fixtures/sbom, as the official schemas are not available offline), plus the cross-references a
// schema cannot check.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { repoRoot, tempDir, tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const LOCKFILES = {
  'package-lock.json': JSON.stringify({
    name: 'demo', lockfileVersion: 3,
    packages: { '': { name: 'demo' }, 'node_modules/lodash': { version: '4.17.21' }, 'node_modules/@scope/pkg': { version: '2.0.0' } },
  }),
  'Cargo.lock': 'version = 3\n\n[[package]]\nname = "serde"\nversion = "1.0.200"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n',
  'requirements.txt': 'Django_Rest==3.2.0\n',
};

const PURLS = ['pkg:cargo/serde@1.0.200', 'pkg:npm/%40scope/pkg@2.0.0', 'pkg:npm/lodash@4.17.21', 'pkg:pypi/django-rest@3.2.0'];

function formatValidator(fixture: string) {
  const ajv = new Ajv({ allErrors: true, strict: true });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  const validate = ajv.compile(JSON.parse(readFileSync(join(repoRoot, 'test/fixtures/sbom', fixture), 'utf8')) as object);
  return (doc: unknown) => assert.ok(validate(doc), `${fixture}: ${ajv.errorsText(validate.errors)}`);
}

describe('default plugin: sbom', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  const spdx = formatValidator('spdx-2.3.subset.schema.json');
  const cyclonedx = formatValidator('cyclonedx-1.5.subset.schema.json');

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo(LOCKFILES);
    const install = await env.run(['plugins', 'install', '--community'], repo.work);
    assert.equal(install.code, 0, install.stderr);
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('sbom --format spdx prints a valid SPDX 2.3 document whose references resolve', async () => {
    const run = await env.run(['sbom', '--format', 'spdx'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    spdx(doc);
    assert.equal(doc.name, 'work');
    const ids = doc.packages.map((p: any) => p.SPDXID);
    assert.equal(new Set(ids).size, ids.length, 'SPDXIDs are unique');
    for (const r of doc.relationships) assert.ok([...ids, 'SPDXRef-DOCUMENT'].includes(r.spdxElementId) && ids.includes(r.relatedSpdxElement), JSON.stringify(r));
    assert.deepEqual(doc.documentDescribes, [ids[0]]);
    assert.deepEqual(doc.packages.slice(1).map((p: any) => p.externalRefs[0].referenceLocator).sort(), PURLS);
    assert.equal(doc.relationships.filter((r: any) => r.relationshipType === 'DEPENDS_ON').length, 4);
    // The schema subset is closed and strict: a misspelt or missing field fails it.
    assert.throws(() => spdx({ ...doc, creationInfo: undefined }), /creationInfo/);
    assert.throws(() => spdx({ ...doc, packages: [{ ...doc.packages[0], versionInfos: '1' }] }), /additional properties/);
  });

  test('sbom --format cyclonedx --json wraps a valid CycloneDX 1.5 BOM', async () => {
    const run = await env.run(['sbom', '--format', 'cyclonedx', '--json'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    const wrapped = assertSchema('sbom', run.json);
    assert.deepEqual([wrapped.format, wrapped.packages], ['cyclonedx', 4]);
    const bom = wrapped.document;
    cyclonedx(bom);
    assert.deepEqual(bom.components.map((c: any) => c.purl).sort(), PURLS);
    assert.deepEqual(bom.components.find((c: any) => c.purl.includes('scope')), { type: 'library', 'bom-ref': PURLS[1], group: '@scope', name: 'pkg', version: '2.0.0', purl: PURLS[1] });
    const refs = new Set(bom.components.map((c: any) => c['bom-ref']));
    assert.deepEqual(bom.dependencies.map((d: any) => d.ref), [bom.metadata.component['bom-ref']]);
    assert.ok(bom.dependencies[0].dependsOn.every((r: string) => refs.has(r)), 'every dependency points at a component');
  });

  test('spdx is the default format; each run gets its own document namespace', async () => {
    const [first, second] = await Promise.all([env.run(['sbom', '--json'], repo.work), env.run(['sbom', '--json'], repo.work)]);
    assert.equal(assertSchema('sbom', first.json).format, 'spdx');
    spdx(first.json.document);
    assert.notEqual(first.json.document.documentNamespace, assertSchema('sbom', second.json).document.documentNamespace);
  });

  test('bad input: an unknown format exits 2; no lockfile exits 1', async () => {
    const bad = await env.run(['sbom', '--format', 'xml', '--json'], repo.work);
    assert.equal(bad.code, 2);
    assert.match(assertSchema('error', bad.json).error.message, /--format "xml" is not one of spdx, cyclonedx/);
    const { dir, cleanup } = await tempDir('roost-sbom-none-');
    try {
      const none = await env.run(['sbom', '--json'], dir);
      assert.equal(none.code, 1);
      assert.match(assertSchema('error', none.json).error.message, /no lockfile or manifest in /);
    } finally {
      await cleanup();
    }
  });
});
