// The default license plugin on a fixture project with installed npm packages (top-level, scoped,
// nested) and a Python virtualenv: licenses are read from installed metadata, --check judges them
// against roost.toml's [license] policy and flags, and a denied license exits 1.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const npm = (name: string, version: string, license: unknown) => JSON.stringify({ name, version, ...(license as object) });

const PROJECT = {
  'package-lock.json': JSON.stringify({
    name: 'demo', lockfileVersion: 3,
    packages: {
      '': { name: 'demo' },
      'node_modules/left-pad': { version: '1.3.0' },
      'node_modules/copyleft': { version: '2.0.0' },
      'node_modules/dual': { version: '1.0.0' },
      'node_modules/both': { version: '1.0.0' },
      'node_modules/@scope/old': { version: '0.1.0' },
      'node_modules/a': { version: '1.0.0' },
      'node_modules/a/node_modules/left-pad': { version: '1.0.0' },
      'node_modules/missing': { version: '9.9.9' },
    },
  }),
  'node_modules/left-pad/package.json': npm('left-pad', '1.3.0', { license: 'WTFPL' }),
  'node_modules/copyleft/package.json': npm('copyleft', '2.0.0', { license: 'GPL-3.0-only' }),
  'node_modules/dual/package.json': npm('dual', '1.0.0', { license: '(MIT OR GPL-3.0-only)' }),
  'node_modules/both/package.json': npm('both', '1.0.0', { license: 'MIT AND BSD-3-Clause' }),
  'node_modules/@scope/old/package.json': npm('@scope/old', '0.1.0', { licenses: [{ type: 'MIT' }, { type: 'Apache-2.0' }] }),
  'node_modules/a/package.json': npm('a', '1.0.0', { license: { type: 'ISC' } }),
  'node_modules/a/node_modules/left-pad/package.json': npm('left-pad', '1.0.0', { license: 'MIT' }),
  'requirements.txt': 'Requests==2.32.3\n',
  'Cargo.lock': 'version = 3\n\n[[package]]\nname = "serde"\nversion = "1.0.200"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n',
  'cargo-home/registry/src/index.crates.io-6f17d22bba15001f/serde-1.0.200/Cargo.toml': '[package]\nname = "serde"\nversion = "1.0.200"\nlicense = "MIT OR Apache-2.0"\n',
  '.venv/lib/python3.12/site-packages/requests-2.32.3.dist-info/METADATA': 'Metadata-Version: 2.1\nName: requests\nVersion: 2.32.3\nLicense: Apache-2.0\nClassifier: License :: OSI Approved :: Apache Software License\n',
  'roost.toml': '[license]\ndeny = ["GPL-3.0-only", "WTFPL"]\n',
  'policies/allow.toml': '[license]\nallow = ["MIT", "ISC", "Apache-2.0"]\n',
  'policies/empty.toml': '# no [license] table\n',
  'policies/allow-unknown.toml': '[license]\ndeny = ["AGPL-3.0-only"]\nallow_unknown = true\n',
  'policies/broken.toml': '[license]\ndeny = "GPL-3.0-only"\n',
};

const table = (doc: any) => Object.fromEntries(doc.packages.map((p: any) => [`${p.name}@${p.version}`, [p.license, p.status]]));

describe('default plugin: license', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  // The fixture's own cargo home, so no run reads the real ~/.cargo.
  const license = (args: string[]) => env.run(['license', ...args], repo.work, { CARGO_HOME: join(repo.work, 'cargo-home') });

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo(PROJECT);
    const install = await env.run(['plugins', 'install', '--community'], repo.work);
    assert.equal(install.code, 0, install.stderr);
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('license --json lists the installed licenses of every locked package', async () => {
    const run = await license(['--json']);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('license', run.json);
    assert.equal(doc.checked, false);
    assert.deepEqual(table(doc), {
      '@scope/old@0.1.0': ['MIT OR Apache-2.0', 'unchecked'],
      'a@1.0.0': ['ISC', 'unchecked'],
      'both@1.0.0': ['MIT AND BSD-3-Clause', 'unchecked'],
      'copyleft@2.0.0': ['GPL-3.0-only', 'unchecked'],
      'dual@1.0.0': ['(MIT OR GPL-3.0-only)', 'unchecked'],
      'left-pad@1.0.0': ['MIT', 'unchecked'],
      'left-pad@1.3.0': ['WTFPL', 'unchecked'],
      'missing@9.9.9': [null, 'unchecked'],
      'Requests@2.32.3': ['Apache-2.0', 'unchecked'],
      'serde@1.0.200': ['MIT OR Apache-2.0', 'unchecked'],
    });
  });

  test('license --check with the roost.toml deny list: a denied license exits 1', async () => {
    const run = await license(['--check', '--json']);
    assert.equal(run.code, 1, run.stderr);
    const doc = assertSchema('license', run.json);
    assert.deepEqual([doc.ok, doc.violations, doc.policy], [false, 3, { allow: [], deny: ['GPL-3.0-only', 'WTFPL'], allowUnknown: false }], 'two denied, and one unknown');
    const t = table(doc);
    assert.deepEqual([t['copyleft@2.0.0'][1], t['left-pad@1.3.0'][1]], ['denied', 'denied']);
    assert.equal(t['dual@1.0.0'][1], 'allowed', 'one acceptable side of an OR is enough');
    assert.equal(t['missing@9.9.9'][1], 'unknown');
    const text = await license(['--check']);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^3 license violations:\n {2}copyleft 2\.0\.0 \(npm\): GPL-3\.0-only\n {2}left-pad 1\.3\.0 \(npm\): WTFPL\n1 without a known license \(install the dependencies so theirs can be read, or accept unknown ones with --allow-unknown or allow_unknown = true in \[license\]\):\n {2}missing 9\.9\.9 \(npm\): unknown/m);
  });

  test('an allow list from --config and flags: AND needs every part allowed; an unknown license fails unless the policy allows unknown ones', async () => {
    const run = await license(['--check', '--config', 'policies/allow.toml', '--allow', 'WTFPL', '--json']);
    assert.equal(run.code, 1, run.stderr);
    const t = table(assertSchema('license', run.json));
    assert.deepEqual(Object.entries(t).filter(([, [, s]]) => s === 'denied').map(([k]) => k), ['both@1.0.0', 'copyleft@2.0.0']);
    assert.equal(t['left-pad@1.3.0'][1], 'allowed');
    const unknownFails = await license(['--check', '--config', 'policies/empty.toml', '--deny', 'AGPL-3.0-only', '--json']);
    assert.equal(unknownFails.code, 1, 'nothing passes because nothing could be read');
    assert.equal(assertSchema('license', unknownFails.json).violations, 1);
    const strict = await license(['--check', '--config', 'policies/empty.toml', '--deny', 'AGPL-3.0-only', '--strict', '--json']);
    assert.equal(strict.code, 1, '--strict is still taken, and is the default');
    const accepting = await license(['--check', '--config', 'policies/empty.toml', '--deny', 'AGPL-3.0-only', '--allow-unknown', '--json']);
    assert.equal(accepting.code, 0, accepting.stderr);
    assert.deepEqual([assertSchema('license', accepting.json).violations, accepting.json.policy.allowUnknown], [0, true]);
    const fromFile = await license(['--check', '--config', 'policies/allow-unknown.toml']);
    assert.equal(fromFile.code, 0, fromFile.stdout);
    assert.match(fromFile.stdout, /^All 10 dependency licenses are acceptable\.\n1 without a known license, accepted by the policy \(allow unknown\):\n {2}missing 9\.9\.9/);
  });

  test('a pnpm project: licenses are read from node_modules/.pnpm', async () => {
    const pnpm = await tempGitRepo({
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n\npackages:\n\n  '@scope/pkg@2.0.0':\n    resolution: {integrity: sha512-x}\n\n  lodash@4.17.21:\n    resolution: {integrity: sha512-y}\n",
      'node_modules/.pnpm/lodash@4.17.21/node_modules/lodash/package.json': npm('lodash', '4.17.21', { license: 'MIT' }),
      'node_modules/.pnpm/@scope+pkg@2.0.0/node_modules/@scope/pkg/package.json': npm('@scope/pkg', '2.0.0', { license: 'GPL-3.0-only' }),
    });
    try {
      const run = await env.run(['license', '--check', '--deny', 'GPL-3.0-only', '--json'], pnpm.work, { CARGO_HOME: join(pnpm.work, 'cargo-home') });
      assert.equal(run.code, 1, run.stderr);
      assert.deepEqual(table(assertSchema('license', run.json)), { '@scope/pkg@2.0.0': ['GPL-3.0-only', 'denied'], 'lodash@4.17.21': ['MIT', 'allowed'] });
    } finally {
      await pnpm.cleanup();
    }
  });

  test('a Go module: licenses read from the LICENSE files in the module cache, unknown ones said to be unknown', async () => {
    const MIT = 'MIT License\n\nCopyright (c) 2013 TOML authors\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\nof this software and associated documentation files (the "Software"), to deal\n';
    const BSD3 = 'Copyright 2009 The Go Authors.\n\nRedistribution and use in source and binary forms, with or without\nmodification, are permitted provided that the following conditions are\nmet:\n ...\n   * Neither the name of Google LLC nor the names of its\n';
    const go = await tempGitRepo({
      'go.mod': 'module example.com/tool\n\ngo 1.22\n\nrequire (\n\tgithub.com/BurntSushi/toml v1.3.2\n\tgolang.org/x/text v0.14.0 // indirect\n\texample.com/unseen v1.0.0\n)\n',
      // The module cache spells capitals as "!" and the lower-case letter.
      'gopath/pkg/mod/github.com/!burnt!sushi/toml@v1.3.2/COPYING': MIT,
      'gopath/pkg/mod/golang.org/x/text@v0.14.0/LICENSE': BSD3,
    });
    try {
      const run = await env.run(['license', '--check', '--allow', 'MIT,BSD-3-Clause', '--json'], go.work, { GOPATH: join(go.work, 'gopath'), CARGO_HOME: join(go.work, 'cargo-home') });
      assert.equal(run.code, 1, run.stderr);
      assert.deepEqual(table(assertSchema('license', run.json)), {
        'example.com/unseen@v1.0.0': [null, 'unknown'],
        'github.com/BurntSushi/toml@v1.3.2': ['MIT', 'allowed'],
        'golang.org/x/text@v0.14.0': ['BSD-3-Clause', 'allowed'],
      });
    } finally {
      await go.cleanup();
    }
  });

  test('bad input: --check without a policy or with a missing config exits 2; a malformed policy exits 1', async () => {
    const none = await license(['--check', '--config', 'policies/empty.toml', '--json']);
    assert.equal(none.code, 2);
    assert.match(assertSchema('error', none.json).error.message, /--check needs a policy/);
    const first = await license(['--check', '--config', 'policies/empty.toml']);
    assert.equal(first.code, 2);
    assert.match(first.stderr, /The licenses found now:\n {2}MIT OR Apache-2\.0: 2\n(.|\n)*\n {2}unknown: 1\n/, 'a first run without a policy lists what it found');
    assert.match(first.stderr, /\[license\]\nallow = \["Apache-2\.0", "BSD-3-Clause", "GPL-3\.0-only", "ISC", "MIT", "WTFPL"\]\n# 1 without a known license fail the check; allow_unknown = true accepts them/, 'and the lines to add to roost.toml');
    const missing = await license(['--check', '--config', 'nope.toml', '--json']);
    assert.equal(missing.code, 2);
    assert.match(assertSchema('error', missing.json).error.message, /nope\.toml does not exist/);
    const broken = await license(['--check', '--config', 'policies/broken.toml', '--json']);
    assert.equal(broken.code, 1);
    assert.match(assertSchema('error', broken.json).error.message, /\[license\] deny must be a list of SPDX identifiers/);
  });
});
