// `roost spec list`: the project map of a tree in several languages (exported symbols only, spec
// documents, packages, .gitignore honoured), a plain directory, and generated trees indexed both with the
// worker pool and in-process — the two maps must be equal.
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { git, roost, tempDir, tempGitRepo, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

const FIXTURE: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'polyglot', version: '1.0.0' }),
  '.gitignore': 'ignored/\n*.log\n',
  'README.md': '# Polyglot\n\nIntro.\n\n## Install\n\n```sh\n# not a heading\n```\n\n## Usage\n',
  'DESIGN.md': '# Design of polyglot\n\n## Layers\n',
  'docs/guide.md': '# Guide\n',
  'docs/api/API-SPEC.md': '# API spec\n\n## Endpoints\n',
  'specs/auth.md': 'No title here.\n',
  'notes/todo.md': '# not a spec\n',
  'web/index.ts': [
    "import { x } from './x.js';",
    'export function handle(req: Request) {}',
    'export async function* stream() {}',
    'export default class App {}',
    'export const PORT = 3000;',
    'export let counter = 0;',
    'export interface Options { a: number }',
    'export type Id = string;',
    'export enum Color { Red }',
    'export const enum Flag { On }',
    'export abstract class Base {}',
    'export declare namespace NS {}',
    "export * as helpers from './helpers.js';",
    "export { x, y as z } from './x.js';",
    'export {',
    '  multi,',
    '  type Line as Renamed,',
    '};',
    'function hidden() {}',
    'const internal = 1;',
  ].join('\n'),
  'web/legacy.cjs': 'exports.old = 1;\nmodule.exports.older = 2;\nfunction local() {}\n',
  'web/main.js': 'export default function () {}\n',
  'py/tool.py': [
    'import os',
    'def public():',
    '    def nested():',
    '        pass',
    'async def fetch_all():',
    '    pass',
    'def _private():',
    '    pass',
    'class Model:',
    '    def method(self):',
    '        pass',
    'class _Hidden:',
    '    pass',
  ].join('\n'),
  'py/pyproject.toml': '[project]\nname = "pytool"\n',
  'go/go.mod': 'module example.com/polyglot\n\ngo 1.22\n',
  'go/server.go': [
    'package server',
    'func Serve() {}',
    'func helper() {}',
    'func (s *Server) Start() error { return nil }',
    'func (s *server) Stop() {}',
    'type Server struct{}',
    'type config struct{}',
    'type Handler interface{}',
    'var Version = "1"',
    'const (',
    '\tMaxConns = 10',
    '\tminConns = 1',
    ')',
  ].join('\n'),
  'rust/Cargo.toml': '[package]\nname = "rusty"\nversion = "0.1.0"\n',
  'rust/src/lib.rs': [
    'pub fn run() {}',
    'pub async fn serve() {}',
    'pub(crate) fn internal() {}',
    'fn private() {}',
    'pub struct Config;',
    'pub enum Mode { A }',
    'pub trait Plugin {}',
    'pub const LIMIT: u32 = 1;',
    'pub static mut COUNT: u32 = 0;',
    'pub mod api;',
  ].join('\n'),
  'jvm/Main.java': 'package app;\npublic final class Main {}\nclass Hidden {}\npublic interface Service {}\n',
  'jvm/Util.kt': 'package app\ndata class Point(val x: Int)\nprivate class Secret\nfun topLevel() {}\ninternal fun notMe() {}\nobject Registry\n',
  'cs/Program.cs': 'namespace App;\npublic static class Program {}\ninternal class Hidden {}\npublic record Person(string Name);\n',
  'rb/lib.rb': 'module Tools\n  def inner; end\nend\nclass Runner\nend\ndef helper\nend\n',
  'swift/Api.swift': 'public struct Api {}\nstruct Internal {}\npublic func start() {}\n',
  'ignored/skip.ts': 'export const nope = 1;\n',
  'debug.log': 'noise\n',
};

const symbolsOf = (doc: any, path: string) =>
  doc.modules.flatMap((m: any) => m.files).find((f: any) => f.path === path)?.symbols.map((s: any) => `${s.kind} ${s.name}`);

describe('roost spec list', () => {
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  let doc: any;

  before(async () => {
    repo = await tempGitRepo(FIXTURE);
    await writeTree(repo.work, { 'web/untracked.ts': 'export const fresh = true;\n' });
    const run = await roost(['spec', 'list', '--json'], { cwd: repo.work });
    assert.equal(run.code, 0, run.stderr);
    doc = assertSchema('spec-list', run.json);
  });
  after(() => repo.cleanup());

  it('lists files through git, honouring .gitignore and including untracked files', () => {
    assert.equal(doc.listing, 'git');
    assert.equal(doc.indexer.mode, 'in-process');
    const paths = doc.modules.flatMap((m: any) => m.files.map((f: any) => f.path));
    assert.ok(paths.includes('web/untracked.ts'));
    assert.ok(!paths.some((p: string) => p.startsWith('ignored/')));
    assert.equal(doc.fileCount, Object.keys(FIXTURE).length - 2 + 1);
  });

  it('extracts TypeScript and JavaScript exports, not private declarations', () => {
    assert.deepEqual(symbolsOf(doc, 'web/index.ts'), [
      'function handle',
      'function stream',
      'class App',
      'const PORT',
      'let counter',
      'interface Options',
      'type Id',
      'enum Color',
      'enum Flag',
      'class Base',
      'namespace NS',
      'namespace helpers',
      'reexport x',
      'reexport z',
      'reexport Renamed',
      'reexport multi',
    ]);
    assert.deepEqual(symbolsOf(doc, 'web/legacy.cjs'), ['value old', 'value older']);
    assert.deepEqual(symbolsOf(doc, 'web/main.js'), ['default default']);
  });

  it('extracts Python, Go, Rust, Java, Kotlin, C#, Ruby and Swift public items', () => {
    assert.deepEqual(symbolsOf(doc, 'py/tool.py'), ['function public', 'function fetch_all', 'class Model']);
    assert.deepEqual(symbolsOf(doc, 'go/server.go'), ['function Serve', 'method Server.Start', 'type Server', 'type Handler', 'var Version', 'const MaxConns']);
    assert.deepEqual(symbolsOf(doc, 'rust/src/lib.rs'), [
      'function run',
      'function serve',
      'struct Config',
      'enum Mode',
      'trait Plugin',
      'const LIMIT',
      'static COUNT',
      'mod api',
    ]);
    assert.deepEqual(symbolsOf(doc, 'jvm/Main.java'), ['class Main', 'interface Service']);
    assert.deepEqual(symbolsOf(doc, 'jvm/Util.kt'), ['class Point', 'function topLevel', 'object Registry']);
    assert.deepEqual(symbolsOf(doc, 'cs/Program.cs'), ['class Program', 'record Person']);
    assert.deepEqual(symbolsOf(doc, 'rb/lib.rb'), ['module Tools', 'class Runner', 'function helper']);
    assert.deepEqual(symbolsOf(doc, 'swift/Api.swift'), ['struct Api', 'function start']);
  });

  it('maps modules to their packages and counts languages', () => {
    const modules = Object.fromEntries(doc.modules.map((m: any) => [m.path, m]));
    assert.deepEqual(Object.keys(modules), ['cs', 'go', 'jvm', 'py', 'rb', 'rust/src', 'swift', 'web']);
    assert.equal(modules.go.package, 'go');
    assert.equal(modules['rust/src'].package, 'rust');
    assert.equal(modules.web.package, '.');
    assert.deepEqual(modules.jvm.languages, ['java', 'kotlin']);
    assert.equal(modules.web.symbolCount, 16 + 2 + 1 + 1);
    assert.deepEqual(doc.packages, [
      { path: '.', manifest: 'package.json', ecosystem: 'node', name: 'polyglot' },
      { path: 'go', manifest: 'go.mod', ecosystem: 'go', name: 'example.com/polyglot' },
      { path: 'py', manifest: 'pyproject.toml', ecosystem: 'python', name: 'pytool' },
      { path: 'rust', manifest: 'Cargo.toml', ecosystem: 'rust', name: 'rusty' },
    ]);
    assert.equal(doc.languages.typescript, 2);
    assert.equal(doc.languages.javascript, 2);
  });

  it('indexes spec documents with titles and section headings', () => {
    assert.deepEqual(doc.specs, [
      { path: 'DESIGN.md', kind: 'design', title: 'Design of polyglot', headings: ['Layers'] },
      { path: 'README.md', kind: 'readme', title: 'Polyglot', headings: ['Install', 'Usage'] },
      { path: 'docs/api/API-SPEC.md', kind: 'spec', title: 'API spec', headings: ['Endpoints'] },
      { path: 'docs/guide.md', kind: 'doc', title: 'Guide', headings: [] },
      { path: 'specs/auth.md', kind: 'spec', title: null, headings: [] },
    ]);
  });

  it('gives the same document on every run, and a readable summary without --json', async () => {
    const again = await roost(['spec', 'list', '--json'], { cwd: repo.work });
    assert.deepEqual(again.json, doc);
    const human = await roost(['spec', 'list'], { cwd: repo.work });
    assert.equal(human.code, 0);
    assert.match(human.stdout, /8 modules, 4 packages, 5 spec documents/);
    assert.match(human.stdout, /^ {2}go\s+go\s+1 file\s+Serve, Server\.Start/m);
    assert.match(human.stdout, /^ {2}DESIGN\.md\s+design\s+Design of polyglot$/m);
  });

  it('walks a plain directory, skipping dependency, build and hidden folders, listing big files unread', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeTree(dir, {
        'src/app.py': 'def main():\n    pass\n',
        'node_modules/lib/index.js': 'export const dep = 1;\n',
        'dist/out.js': 'export const built = 1;\n',
        '.cache/x.ts': 'export const hidden = 1;\n',
        'README.md': '# Plain\n',
        'src/bundle.js': `export const huge = '${'x'.repeat(1100 * 1024)}';\n`,
      });
      const run = await roost(['spec', 'list', '--json'], { cwd: dir });
      const plain = assertSchema('spec-list', run.json);
      assert.equal(plain.listing, 'walk');
      assert.equal(plain.fileCount, 3);
      assert.deepEqual(plain.modules.map((m: any) => m.path), ['src']);
      const bundle = plain.modules[0].files.find((f: any) => f.path === 'src/bundle.js');
      assert.deepEqual(bundle, { path: 'src/bundle.js', language: 'javascript', lines: 0, symbols: [], skipped: 'larger than 1 MiB' });
      assert.deepEqual(plain.specs.map((s: any) => s.title), ['Plain']);
    } finally {
      await cleanup();
    }
  });

  it('keeps its columns aligned when a path is longer than a column', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const deep = 'packages/a-rather-long-package-name/src/features/billing/adapters/outbound';
      await writeTree(dir, { 'src/app.py': 'def main():\n    pass\n', [`${deep}/client.ts`]: 'export function charge() {}\n', 'README.md': '# Columns\n' });
      const run = await roost(['spec', 'list'], { cwd: dir });
      assert.equal(run.code, 0, run.stderr);
      const modules = run.stdout.split('\n').slice(run.stdout.split('\n').indexOf('Modules') + 1).filter((line) => /file/.test(line));
      assert.equal(modules.length, 2, run.stdout);
      const languageAt = modules.map((line) => line.search(/ (python|typescript)/));
      assert.equal(languageAt[0], languageAt[1], `the language column starts at one place:\n${modules.join('\n')}`);
      assert.match(modules.find((line) => line.includes('typescript'))!, /^ {2}….*adapters\/outbound /, 'a path too long keeps its end');
    } finally {
      await cleanup();
    }
  });

  it('rejects a bad --workers value with exit 2', async () => {
    for (const value of ['-1', 'many', '1.5', '1000']) {
      const run = await roost(['spec', 'list', '--json', '--workers', value], { cwd: repo.work });
      assert.equal(run.code, 2, value);
      assert.equal(assertSchema('error', run.json).error.code, 'USAGE');
    }
  });
});

describe('roost spec list on bigger trees', () => {
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    const files: Record<string, string> = { 'package.json': '{"name":"big"}' };
    for (let i = 0; i < 260; i++) {
      const dir = `pkg${String(i % 13).padStart(2, '0')}`;
      files[`${dir}/file${String(i).padStart(3, '0')}.ts`] = `export function fn${i}() {}\nexport const value${i} = ${i};\nfunction hidden${i}() {}\n`;
    }
    for (let i = 0; i < 20; i++) files[`src/mod${i}.py`] = `def public_${i}():\n    pass\n\ndef _private_${i}():\n    pass\n`;
    repo = await tempGitRepo(files);
  });
  after(() => repo.cleanup());

  const strip = (d: any) => ({ ...d, indexer: undefined });

  it('indexes 281 files in-process by default, and a forced worker pool gives the same map', async () => {
    const run = await roost(['spec', 'list', '--json'], { cwd: repo.work });
    assert.equal(run.code, 0, run.stderr);
    const inline = assertSchema('spec-list', run.json);
    assert.deepEqual(inline.indexer, { mode: 'in-process', workers: 0, threshold: 5000 });
    assert.equal(inline.fileCount, 281);
    assert.equal(inline.modules.length, 14);
    assert.equal(inline.languages.typescript, 260);
    const pkg07 = inline.modules.find((m: any) => m.path === 'pkg07');
    assert.equal(pkg07.files.length, 20);
    assert.deepEqual(pkg07.files[0].symbols, [
      { name: 'fn7', kind: 'function', line: 1 },
      { name: 'value7', kind: 'const', line: 2 },
    ]);

    const forcedRun = await roost(['spec', 'list', '--json', '--workers', '3'], { cwd: repo.work });
    assert.equal(forcedRun.code, 0, forcedRun.stderr);
    const forced = assertSchema('spec-list', forcedRun.json);
    assert.deepEqual(forced.indexer, { mode: 'workers', workers: 3, threshold: 5000 });
    assert.deepEqual(strip(forced), strip(inline));
  });

  it('switches to the worker pool by itself past the threshold, with the same map as in-process', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const files: Record<string, string> = {};
      for (let i = 0; i < 5001; i++) files[`m${i % 40}/f${i}.go`] = `package m\nfunc F${i}() {}\nfunc g${i}() {}\n`;
      await writeTree(dir, files);
      const pooledRun = await roost(['spec', 'list', '--json'], { cwd: dir });
      assert.equal(pooledRun.code, 0, pooledRun.stderr);
      const pooled = assertSchema('spec-list', pooledRun.json);
      // A single-core machine never starts a pool on its own.
      assert.equal(pooled.indexer.mode, availableParallelism() > 1 ? 'workers' : 'in-process');
      assert.equal(pooled.fileCount, 5001);
      assert.equal(pooled.modules.length, 40);
      assert.equal(pooled.modules.reduce((n: number, m: any) => n + m.symbolCount, 0), 5001);

      const inlineRun = await roost(['spec', 'list', '--json', '--workers', '0'], { cwd: dir });
      assert.equal(inlineRun.code, 0, inlineRun.stderr);
      const inline = assertSchema('spec-list', inlineRun.json);
      assert.equal(inline.indexer.mode, 'in-process');
      assert.deepEqual(strip(pooled), strip(inline));
    } finally {
      await cleanup();
    }
  });
});
