// The default deps plugin (roost plugins install --defaults) on a project with Rust, Node and Python
// lockfiles: listing, --outdated against a local registry map and against registry-shaped HTTP APIs,
// --audit against a local OSV file and an OSV-shaped API. Every --json document is schema-checked.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir, tempGitRepo, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const LOCKFILES = {
  'Cargo.toml': '[package]\nname = "demo"\nversion = "0.1.0"\n',
  'Cargo.lock': [
    'version = 3', '',
    '[[package]]', 'name = "demo"', 'version = "0.1.0"', '',
    '[[package]]', 'name = "serde"', 'version = "1.0.100"', 'source = "registry+https://github.com/rust-lang/crates.io-index"', '',
    '[[package]]', 'name = "time"', 'version = "0.1.40"', 'source = "registry+https://github.com/rust-lang/crates.io-index"', '',
  ].join('\n'),
  'package-lock.json': JSON.stringify({
    name: 'demo', lockfileVersion: 3,
    packages: {
      '': { name: 'demo', version: '1.0.0' },
      'node_modules/left-pad': { version: '1.1.0' },
      'node_modules/lodash': { version: '4.17.15' },
      'node_modules/a/node_modules/lodash': { version: '4.17.21' },
      'node_modules/@scope/pkg': { version: '2.0.0' },
      'node_modules/local-thing': { resolved: '../local-thing', link: true },
    },
  }),
  'poetry.lock': '[[package]]\nname = "requests"\nversion = "2.25.0"\n',
  'uv.lock': [
    'version = 1', '',
    '[[package]]', 'name = "demo-py"', 'version = "0.1.0"', 'source = { editable = "." }', '',
    '[[package]]', 'name = "urllib3"', 'version = "1.26.4"', 'source = { registry = "https://pypi.org/simple" }', '',
  ].join('\n'),
  'requirements.txt': 'Django==3.2.0  # pinned\nflask>=2\n-r other.txt\nPyYAML[extra]==5.3 ; python_version > "3"\n',
};

const LATEST: Record<string, string> = {
  'crates.io/serde': '1.0.200', 'crates.io/time': '0.1.40',
  'npm/left-pad': '1.3.0', 'npm/lodash': '4.17.21', 'npm/@scope/pkg': '2.0.0',
  'Go/github.com/BurntSushi/toml': 'v1.4.0', 'Go/golang.org/x/text': 'v0.14.0',
  'PyPI/requests': '2.32.3', 'PyPI/urllib3': '2.2.0', 'PyPI/django': '5.0.0', 'PyPI/pyyaml': '6.0.1',
};

const ADVISORIES = [
  { id: 'GHSA-lodash-proto', summary: 'Prototype pollution in lodash', aliases: ['CVE-2020-8203'], database_specific: { severity: 'HIGH' },
    affected: [{ package: { ecosystem: 'npm', name: 'lodash' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.19' }] }] }] },
  { id: 'RUSTSEC-2020-0071', summary: 'Potential segfault in the time crate',
    affected: [{ package: { ecosystem: 'crates.io', name: 'time' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0.0.0-0' }, { fixed: '0.2.23' }] }] }] },
  { id: 'PYSEC-django-sql', summary: 'SQL injection in Django',
    affected: [{ package: { ecosystem: 'PyPI', name: 'django' }, versions: ['3.2.0', '3.2.1'] }] },
  { id: 'GHSA-requests-old', summary: 'Only old requests',
    affected: [{ package: { ecosystem: 'PyPI', name: 'requests' }, ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.20.0' }] }] }] },
  { id: 'GHSA-left-pad', summary: 'left-pad pads wrongly',
    affected: [{ package: { ecosystem: 'npm', name: 'left-pad' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { last_affected: '1.1.0' }] }] }] },
];

const EXPECTED_OUTDATED = [
  ['crates.io', 'serde', '1.0.100', '1.0.200'],
  ['npm', 'left-pad', '1.1.0', '1.3.0'],
  ['npm', 'lodash', '4.17.15', '4.17.21'],
  ['PyPI', 'Django', '3.2.0', '5.0.0'],
  ['PyPI', 'PyYAML', '5.3', '6.0.1'],
  ['PyPI', 'requests', '2.25.0', '2.32.3'],
  ['PyPI', 'urllib3', '1.26.4', '2.2.0'],
];

const EXPECTED_FINDINGS = [
  ['PYSEC-django-sql', 'Django', '3.2.0', null],
  ['GHSA-left-pad', 'left-pad', '1.1.0', null],
  ['GHSA-lodash-proto', 'lodash', '4.17.15', '4.17.19'],
  ['RUSTSEC-2020-0071', 'time', '0.1.40', '0.2.23'],
];

/** A loopback server with the npm registry, crates.io, PyPI and OSV routes deps uses, fed from the tables above. */
async function startRegistries(): Promise<{ url: string; server: Server }> {
  const send = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer(async (req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    let m: RegExpExecArray | null;
    if ((m = /^\/npm\/(.+)\/latest$/.exec(url)) && LATEST[`npm/${m[1]}`]) return send(res, 200, { version: LATEST[`npm/${m[1]}`] });
    if ((m = /^\/crates\/crates\/(.+)$/.exec(url)) && LATEST[`crates.io/${m[1]}`]) return send(res, 200, { crate: { max_stable_version: LATEST[`crates.io/${m[1]}`] } });
    if ((m = /^\/pypi\/(.+)\/json$/.exec(url)) && LATEST[`PyPI/${m[1]!.toLowerCase()}`]) return send(res, 200, { info: { version: LATEST[`PyPI/${m[1]!.toLowerCase()}`] } });
    // The Go module proxy: capitals in a path come as "!" and the lower-case letter.
    if ((m = /^\/goproxy\/(.+)\/@latest$/.exec(url))) {
      const module = m[1]!.replace(/!([a-z])/g, (_, c: string) => c.toUpperCase());
      if (LATEST[`Go/${module}`]) return send(res, 200, { Version: LATEST[`Go/${module}`], Time: '2026-01-01T00:00:00Z' });
    }
    if (req.method === 'POST' && url === '/osv/v1/querybatch') {
      let text = '';
      for await (const chunk of req) text += chunk;
      const { queries } = JSON.parse(text) as { queries: Array<{ package: { name: string } }> };
      const results = queries.map((q) => ({
        vulns: ADVISORIES.filter((a) => a.affected.some((x) => x.package.name.toLowerCase() === q.package.name.toLowerCase())).map((a) => ({ id: a.id })),
      }));
      return send(res, 200, { results });
    }
    if ((m = /^\/osv\/v1\/vulns\/(.+)$/.exec(url))) {
      const record = ADVISORIES.find((a) => a.id === m![1]);
      return record ? send(res, 200, record) : send(res, 404, { message: 'not found' });
    }
    send(res, 404, { message: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('default plugin: deps', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  let sources: { dir: string; cleanup: () => Promise<void> };
  let registries: { url: string; server: Server };
  let fileEnv: Record<string, string>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo(LOCKFILES);
    sources = await tempDir('roost-deps-sources-');
    await writeFile(join(sources.dir, 'latest.json'), JSON.stringify(LATEST));
    await writeFile(join(sources.dir, 'advisories.json'), JSON.stringify(ADVISORIES));
    fileEnv = { ROOST_DEPS_REGISTRY: join(sources.dir, 'latest.json'), ROOST_ADVISORIES: join(sources.dir, 'advisories.json') };
    registries = await startRegistries();
    const install = await env.run(['plugins', 'install', '--defaults', '--json'], repo.work);
    assert.equal(install.code, 0, install.stderr);
    const doc = assertSchema('plugins-install', install.json);
    // The seed's default set of three; the community commands come with --community.
    assert.deepEqual(doc.installed.map((p: any) => [p.name, p.linked, p.source]), [
      ['cli-plugin-deps', true, 'builtin:deps'], ['cli-plugin-metrics', true, 'builtin:metrics'], ['cli-plugin-github', true, 'builtin:github'],
    ]);
    const community = await env.run(['plugins', 'install', '--community', '--json'], repo.work);
    assert.deepEqual(assertSchema('plugins-install', community.json).installed.map((p: any) => p.source), [
      'builtin:secrets', 'builtin:sbom', 'builtin:license', 'builtin:context', 'builtin:coverage', 'builtin:notify', 'builtin:deploy',
    ]);
  });
  after(async () => {
    registries.server.close();
    await Promise.all([repo.cleanup(), sources.cleanup()]);
    await env.cleanup();
  });

  test('installing the defaults again refreshes them in place', async () => {
    const again = await env.run(['plugins', 'install', '--defaults', '--json'], repo.work);
    assert.equal(again.code, 0, again.stderr);
    const doc = assertSchema('plugins-install', again.json);
    assert.deepEqual(doc.installed, []);
    assert.equal(doc.refreshed.length, 3);
  });

  test('deps --json lists every locked package of every ecosystem', async () => {
    const run = await env.run(['deps', '--json'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('deps', run.json);
    assert.deepEqual(doc.lockfiles.map((l: any) => [l.file, l.packages]), [
      ['Cargo.lock', 2], ['package-lock.json', 4], ['poetry.lock', 1], ['uv.lock', 1], ['requirements.txt', 2],
    ]);
    assert.equal(doc.packages.length, 10);
    assert.ok(doc.packages.some((p: any) => p.name === '@scope/pkg' && p.ecosystem === 'npm'));
    assert.ok(!doc.packages.some((p: any) => ['demo', 'demo-py', 'local-thing', 'flask'].includes(p.name)), 'workspace, editable, linked and unpinned entries are not locked dependencies');
    assert.equal(doc.outdated, undefined);
  });

  test('deps --outdated --json against a local registry file', async () => {
    const run = await env.run(['deps', '--outdated', '--json'], repo.work, fileEnv);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('deps', run.json);
    assert.deepEqual(doc.outdated.map((o: any) => [o.ecosystem, o.name, o.current, o.latest]), EXPECTED_OUTDATED);
  });

  test('deps --outdated asks registry-shaped HTTP APIs when no file is given', async () => {
    const run = await env.run(['deps', '--outdated', '--json'], repo.work, {
      ROOST_NPM_REGISTRY: `${registries.url}/npm`, ROOST_CRATES_API: `${registries.url}/crates`, ROOST_PYPI_API: `${registries.url}/pypi`,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(assertSchema('deps', run.json).outdated.map((o: any) => [o.ecosystem, o.name, o.current, o.latest]), EXPECTED_OUTDATED);
  });

  test('deps --audit --json reports advisories from a local OSV file and exits 1', async () => {
    const run = await env.run(['deps', '--audit', '--json'], repo.work, fileEnv);
    assert.equal(run.code, 1, run.stderr);
    const doc = assertSchema('deps', run.json);
    assert.equal(doc.ok, false);
    assert.deepEqual(doc.vulnerabilities.map((v: any) => [v.id, v.name, v.version, v.fixed]), EXPECTED_FINDINGS);
    const lodash = doc.vulnerabilities.find((v: any) => v.name === 'lodash');
    assert.equal(lodash.severity, 'HIGH');
    assert.deepEqual(lodash.aliases, ['CVE-2020-8203']);
  });

  test('deps --audit asks an OSV-shaped API when no file is given', async () => {
    const run = await env.run(['deps', '--audit', '--json'], repo.work, { ROOST_OSV_API: `${registries.url}/osv` });
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(assertSchema('deps', run.json).vulnerabilities.map((v: any) => [v.id, v.name, v.version, v.fixed]), EXPECTED_FINDINGS);
  });

  test('deps --outdated --audit prints a readable report', async () => {
    const run = await env.run(['deps', '--outdated', '--audit'], repo.work, fileEnv);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^10 locked dependencies in .* \(Cargo\.lock, package-lock\.json, poetry\.lock, uv\.lock, requirements\.txt\)$/m);
    assert.match(run.stdout, /^ {2}serde 1\.0\.100 -> 1\.0\.200 \(crates\.io\)$/m);
    assert.match(run.stdout, /^ {2}GHSA-lodash-proto lodash 4\.17\.15 \[HIGH\]: Prototype pollution in lodash \(fixed in 4\.17\.19\)$/m);
  });

  test('deps reads the pnpm, yarn and bun lockfiles roost run recognises', async () => {
    const cases: Array<[label: string, file: string, text: string]> = [
      ['pnpm v9', 'pnpm-lock.yaml', "lockfileVersion: '9.0'\n\nimporters:\n  .:\n    dependencies:\n      lodash:\n        specifier: ^4.17.21\n        version: 4.17.21\n\npackages:\n\n  '@scope/pkg@2.0.0':\n    resolution: {integrity: sha512-x}\n\n  lodash@4.17.21:\n    resolution: {integrity: sha512-y}\n\nsnapshots:\n\n  lodash@4.17.21: {}\n"],
      ['pnpm v6', 'pnpm-lock.yaml', "lockfileVersion: '6.0'\n\npackages:\n\n  /@scope/pkg@2.0.0(react@18.2.0):\n    resolution: {integrity: sha512-x}\n    dev: false\n\n  /lodash@4.17.21:\n    resolution: {integrity: sha512-y}\n"],
      ['pnpm v5', 'pnpm-lock.yaml', "lockfileVersion: 5.4\n\npackages:\n\n  /@scope/pkg/2.0.0_react@18.2.0:\n    resolution: {integrity: sha512-x}\n\n  /lodash/4.17.21:\n    resolution: {integrity: sha512-y}\n"],
      ['yarn v1', 'yarn.lock', '# THIS IS AN AUTOGENERATED FILE.\n# yarn lockfile v1\n\n\n"@scope/pkg@^2.0.0":\n  version "2.0.0"\n  resolved "https://registry.yarnpkg.com/@scope/pkg/-/pkg-2.0.0.tgz"\n\nlodash@^4.17.0, lodash@^4.17.21:\n  version "4.17.21"\n'],
      ['yarn berry', 'yarn.lock', '__metadata:\n  version: 8\n  cacheKey: 10c0\n\n"@scope/pkg@npm:^2.0.0":\n  version: 2.0.0\n  resolution: "@scope/pkg@npm:2.0.0"\n\n"demo@workspace:.":\n  version: 0.0.0-use.local\n  resolution: "demo@workspace:."\n\n"lodash@npm:^4.17.0, lodash@npm:^4.17.21":\n  version: 4.17.21\n  resolution: "lodash@npm:4.17.21"\n'],
      ['bun', 'bun.lock', '{\n  "lockfileVersion": 1,\n  "workspaces": {\n    "": { "name": "demo", "dependencies": { "lodash": "^4.17.21" }, },\n  },\n  "packages": {\n    "@scope/pkg": ["@scope/pkg@2.0.0", "", {}, "sha512-x"],\n    "lodash": ["lodash@4.17.21", "", {}, "sha512-y"],\n    "local": ["local@workspace:packages/local"],\n  }\n}\n'],
    ];
    for (const [label, file, text] of cases) {
      const { dir, cleanup } = await tempDir('roost-deps-node-');
      try {
        await writeFile(join(dir, file), text);
        const run = await env.run(['deps', '--json'], dir);
        assert.equal(run.code, 0, `${label}: ${run.stderr}`);
        const doc = assertSchema('deps', run.json);
        assert.deepEqual(doc.lockfiles, [{ file, ecosystem: 'npm', packages: 2 }], label);
        assert.deepEqual(doc.packages.map((p: any) => `${p.name}@${p.version}`), ['@scope/pkg@2.0.0', 'lodash@4.17.21'], label);
      } finally {
        await cleanup();
      }
    }
  });

  test('deps reads Go modules from go.mod, and a manifest\'s declared ranges where nothing is locked', async () => {
    const { dir, cleanup } = await tempDir('roost-deps-go-');
    try {
      await writeTree(dir, {
        'go.mod': 'module example.com/tool\n\ngo 1.22\n\nrequire github.com/BurntSushi/toml v1.3.2\n\nrequire (\n\tgolang.org/x/text v0.14.0 // indirect\n)\n',
        'go.sum': 'github.com/BurntSushi/toml v1.3.2 h1:x=\ngithub.com/BurntSushi/toml v1.3.2/go.mod h1:y=\n',
        // A library's package.json and Cargo.toml, with no lockfile beside them.
        'package.json': JSON.stringify({ name: 'lib', dependencies: { lodash: '^4.17.15', local: 'file:../local' }, devDependencies: { 'left-pad': '~1.1.0' } }),
        'Cargo.toml': '[package]\nname = "lib"\nversion = "0.1.0"\n\n[dependencies]\nserde = "1.0.100"\nmine = { path = "../mine" }\n\n[dev-dependencies]\ntime = { version = "0.1.40", features = ["x"] }\n',
      });
      const run = await env.run(['deps', '--json'], dir);
      assert.equal(run.code, 0, run.stderr);
      const doc = assertSchema('deps', run.json);
      assert.deepEqual(doc.lockfiles, [
        { file: 'go.mod', ecosystem: 'Go', packages: 2 },
        { file: 'package.json', ecosystem: 'npm', packages: 2, declared: true },
        { file: 'Cargo.toml', ecosystem: 'crates.io', packages: 2, declared: true },
      ]);
      assert.deepEqual(doc.packages.map((p: any) => `${p.ecosystem}:${p.name}@${p.version}`), [
        'crates.io:serde@1.0.100', 'crates.io:time@0.1.40',
        'Go:github.com/BurntSushi/toml@v1.3.2', 'Go:golang.org/x/text@v0.14.0',
        'npm:left-pad@1.1.0', 'npm:lodash@4.17.15',
      ]);
      const outdated = await env.run(['deps', '--outdated', '--json'], dir, {
        ROOST_NPM_REGISTRY: `${registries.url}/npm`, ROOST_CRATES_API: `${registries.url}/crates`, ROOST_GOPROXY: `${registries.url}/goproxy`,
      });
      assert.equal(outdated.code, 0, outdated.stderr);
      assert.deepEqual(assertSchema('deps', outdated.json).outdated.map((o: any) => [o.ecosystem, o.name, o.current, o.latest]), [
        ['crates.io', 'serde', '1.0.100', '1.0.200'],
        ['Go', 'github.com/BurntSushi/toml', 'v1.3.2', 'v1.4.0'],
        ['npm', 'left-pad', '1.1.0', '1.3.0'],
        ['npm', 'lodash', '4.17.15', '4.17.21'],
      ]);
      const text = await env.run(['deps'], dir);
      assert.match(text.stdout, /^6 locked dependencies in .* \(go\.mod, package\.json: declared ranges, their lowest versions, Cargo\.toml: declared ranges, their lowest versions\)$/m);
      const sbom = await env.run(['sbom', '--format', 'cyclonedx', '--json'], dir);
      assert.equal(sbom.code, 0, sbom.stderr);
      assert.ok(sbom.json.document.components.some((c: any) => c.purl === 'pkg:golang/github.com/BurntSushi/toml@v1.3.2'), JSON.stringify(sbom.json.document.components.map((c: any) => c.purl)));
    } finally {
      await cleanup();
    }
  });

  test('bad input: no lockfile, an unknown flag, a broken source', async () => {
    const { dir, cleanup } = await tempDir('roost-nolock-');
    try {
      const none = await env.run(['deps', '--json'], dir);
      assert.equal(none.code, 1);
      assertSchema('error', none.json);
      assert.match(none.json.error.message, /no lockfile or manifest in .* \(looked for Cargo\.lock, package-lock\.json, pnpm-lock\.yaml, yarn\.lock, bun\.lock, poetry\.lock, uv\.lock, requirements\.txt, go\.mod, package\.json, Cargo\.toml, pyproject\.toml\)/);
    } finally {
      await cleanup();
    }
    const help = await env.run(['deps', '--help'], repo.work);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^usage: roost deps \[--outdated\] \[--audit\] \[--json\]/);
    const flag = await env.run(['deps', '--outdatd', '--json'], repo.work);
    assert.equal(flag.code, 2);
    assert.equal(assertSchema('error', flag.json).error.code, 'USAGE');
    await writeFile(join(sources.dir, 'broken.json'), '{not json');
    const broken = await env.run(['deps', '--outdated', '--json'], repo.work, { ROOST_DEPS_REGISTRY: join(sources.dir, 'broken.json') });
    assert.equal(broken.code, 1);
    assert.match(assertSchema('error', broken.json).error.message, /ROOST_DEPS_REGISTRY file .*broken\.json is not valid JSON/);
  });
});
