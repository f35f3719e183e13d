// The project readers on their own: stack detection from marker files, justfile recipes as just reads
// them, the lockfiles of pnpm, yarn and bun, and the spec indexer's file roles and exported symbols.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readBunLock, readPnpmLock, readYarnLock } from '../../lib/lockfiles/node-lockfiles.js';
import { parseJustfile } from '../../lib/project/justfile.js';
import { detectStacks } from '../../lib/project/stacks.js';
import { extractSymbols } from '../../lib/spec/extract.js';
import { classify } from '../../lib/spec/languages.js';

const files = (...names: string[]) => (file: string) => names.includes(file);

describe('stack detection', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'roost-unit-stacks-'));
    await writeFile(join(root, '.git'), ''); // the package-manager search stops here
    await writeFile(join(root, 'package.json'), JSON.stringify({ scripts: { test: 'vitest', format: 'prettier -w .' } }));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('names each stack from its marker, with the tool its lockfile or wrapper names', () => {
    const ids = (has: (f: string) => boolean) => detectStacks(root, has).map((s) => `${s.id}:${s.tool}:${s.marker}`);
    assert.deepEqual(ids(files('Cargo.toml')), ['rust:cargo:Cargo.toml']);
    assert.deepEqual(ids(files('pyproject.toml', 'uv.lock')), ['python:uv:pyproject.toml']);
    assert.deepEqual(ids(files('setup.py')), ['python:python3:setup.py']);
    assert.deepEqual(ids(files('pom.xml', 'mvnw')), ['java:./mvnw:pom.xml']);
    assert.deepEqual(ids(files('build.gradle.kts', 'build.gradle')), ['java:gradle:build.gradle.kts']);
    assert.deepEqual(ids(files()), []);
  });

  it('puts package.json last beside another stack, and runs npm scripts with "--" before extra arguments', () => {
    const [go, node] = detectStacks(root, files('go.mod', 'package.json'));
    assert.equal(go?.id, 'go');
    assert.deepEqual(go?.tasks.test, { argv: ['go', 'test', './...'] });
    assert.equal(node?.id, 'node');
    assert.equal(node?.tool, 'npm');
    assert.deepEqual(node?.tasks.test, { argv: ['npm', 'run', 'test'], argsSeparator: '--' });
    assert.deepEqual(node?.tasks.fmt, { argv: ['npm', 'run', 'format'], argsSeparator: '--' }, 'fmt runs the format script');
  });

  it('runs a strict lint and a checking fmt for rust, uv run for a uv project', () => {
    const [rust] = detectStacks(root, files('Cargo.toml'));
    assert.deepEqual(rust?.tasks.lint?.argv, ['cargo', 'clippy', '--all-targets', '--', '-D', 'warnings']);
    assert.deepEqual(rust?.tasks.fmt?.argv, ['cargo', 'fmt', '--check']);
    const [python] = detectStacks(root, files('pyproject.toml', 'uv.lock'));
    assert.deepEqual(python?.tasks.test?.argv, ['uv', 'run', 'pytest']);
  });
});

describe('justfile recipes without just', () => {
  it('lists public recipes in file order, then aliases of public recipes', () => {
    const text = [
      'set shell := ["bash", "-c"]',
      'version := "1.0"',
      'export TOKEN := `cat token`',
      '# a comment: not a recipe',
      'build target="all" *flags:',
      '    cargo build',
      '@test: build',
      '    cargo test',
      '_helper:',
      '    true',
      '[private]',
      'hidden:',
      '    true',
      "[group('ci')]",
      'lint url="http://x:1" +rest:',
      '    true',
      'alias b := build',
      'alias h := hidden',
      'alias _x := test',
      '[private]',
      'alias t := test',
    ].join('\n');
    assert.deepEqual(parseJustfile(text), ['build', 'test', 'lint', 'b']);
  });
});

describe('Node lockfiles', () => {
  it('reads pnpm-lock.yaml keys of v5, v6 and v9', () => {
    const lock = ['lockfileVersion: 5.4', 'importers:', '  .:', '    specifiers: {}', 'packages:', '  /left-pad/1.3.0:', '    resolution: {}', '  /@types/node/20.1.0_typescript@5.0.0:', '    dev: true', "  /react@18.2.0(loose-envify@1.4.0):", '    x: 1', "  '@scope/pkg@2.0.0':", '    y: 2', 'snapshots:', '  other@9.9.9:', '    z: 3'].join('\n');
    assert.deepEqual(readPnpmLock(lock), [
      { name: 'left-pad', version: '1.3.0' },
      { name: '@types/node', version: '20.1.0' },
      { name: 'react', version: '18.2.0' },
      { name: '@scope/pkg', version: '2.0.0' },
    ]);
  });

  it('reads yarn.lock v1 and berry, leaving workspace packages out', () => {
    const v1 = ['# yarn lockfile v1', '', '"@babel/core@^7.0.0", "@babel/core@^7.1.0":', '  version "7.2.0"', '  resolved "x"', '', 'lodash@^4:', '  version "4.17.21"'].join('\n');
    assert.deepEqual(readYarnLock(v1), [{ name: '@babel/core', version: '7.2.0' }, { name: 'lodash', version: '4.17.21' }]);
    const berry = ['__metadata:', '  version: 6', '', '"app@workspace:.":', '  version: 0.0.0-use.local', '', '"chalk@npm:^5.0.0":', '  version: 5.3.0'].join('\n');
    assert.deepEqual(readYarnLock(berry), [{ name: 'chalk', version: '5.3.0' }]);
  });

  it('reads bun.lock, trailing commas and all', () => {
    const lock = '{\n  "lockfileVersion": 1,\n  "packages": {\n    "zod": ["zod@3.23.8", "", {}, "sha512-x"],\n    "app": ["app@workspace:packages/app"],\n    "weird": [42],\n  },\n}\n';
    assert.deepEqual(readBunLock(lock), [{ name: 'zod', version: '3.23.8' }]);
  });
});

describe('spec indexer', () => {
  it('tells sources, specs and manifests apart by path', () => {
    assert.deepEqual(classify('src/app.tsx'), { role: 'source', language: 'typescript' });
    assert.deepEqual(classify('lib/x.PY'), { role: 'source', language: 'python' });
    assert.deepEqual(classify('pkg/Cargo.toml'), { role: 'manifest' });
    assert.deepEqual(classify('README.md'), { role: 'spec', kind: 'readme' });
    assert.deepEqual(classify('ARCHITECTURE.md'), { role: 'spec', kind: 'design' });
    assert.deepEqual(classify('notes/rfc-12-storage.md'), { role: 'spec', kind: 'spec' });
    assert.deepEqual(classify('docs/guide/setup.md'), { role: 'spec', kind: 'doc' });
    assert.deepEqual(classify('notes/todo.md'), { role: 'other' });
    assert.deepEqual(classify('image.png'), { role: 'other' });
  });

  it('finds exported symbols with their kind and line', () => {
    const ts = ['import x from "y";', 'export async function load() {}', 'export abstract class Base {}', 'export const LIMIT = 3;', 'export interface Shape {}', 'function local() {}', 'export default function () {}'].join('\n');
    assert.deepEqual(extractSymbols('typescript', ts).map((s) => `${s.kind} ${s.name} ${s.line}`), ['function load 2', 'class Base 3', 'const LIMIT 4', 'interface Shape 5', 'default default 7']);
    const go = ['package x', 'func Exported() {}', 'func hidden() {}', 'type Store struct {', 'const Max = 1'].join('\n');
    assert.deepEqual(extractSymbols('go', go).map((s) => `${s.kind} ${s.name}`), ['function Exported', 'type Store', 'const Max']);
    const rust = ['pub async fn serve() {}', 'fn private() {}', 'pub struct Config;', 'pub static mut COUNT: u8 = 0;'].join('\n');
    assert.deepEqual(extractSymbols('rust', rust).map((s) => `${s.kind} ${s.name}`), ['function serve', 'struct Config', 'static COUNT']);
  });
});
