// JavaScript workspaces in `roost run`: a task in one package (--workspace, by name or folder), or in
// every package that has it (--workspaces) after the packages it depends on; the first failure stops the
// run with its exit code; pnpm-workspace.yaml is read too; cycles and bad names are clear errors.
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { roost, tempDir, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

/** A script that appends the package's name to order.log at the workspace root. */
const record = (name: string) => `node -e "require('fs').appendFileSync('../../order.log', '${name}\\n')"`;

const pkg = (name: string, scripts: Record<string, string>, dependencies: Record<string, string> = {}) =>
  JSON.stringify({ name, version: '1.0.0', private: true, scripts, dependencies });

describe('roost run: JavaScript workspaces', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const ws = () => join(dir, 'npm');
  const order = async () => (await readFile(join(ws(), 'order.log'), 'utf8')).trim().split('\n');

  before(async () => {
    ({ dir, cleanup } = await tempDir('roost-workspaces-'));
    await writeTree(dir, {
      // app depends on lib (a devDependency counts), lib on util; docs has no test script.
      'npm/package.json': JSON.stringify({ name: 'shop', private: true, workspaces: ['packages/*', 'tools/cli'] }),
      'npm/package-lock.json': JSON.stringify({ name: 'shop', lockfileVersion: 3, requires: true, packages: {} }),
      'npm/packages/app/package.json': pkg('@shop/app', { test: record('app'), check: record('app') }, { '@shop/lib': '*', react: '^18' }),
      'npm/packages/lib/package.json': JSON.stringify({ name: '@shop/lib', scripts: { test: record('lib'), check: 'exit 4' }, devDependencies: { '@shop/util': '*' } }),
      'npm/packages/docs/package.json': pkg('@shop/docs', { build: 'echo docs' }),
      'npm/tools/cli/package.json': pkg('@shop/util', { test: record('util'), check: record('util') }),
      'npm/packages/not-a-package/README.md': 'no package.json here\n',
      'pnpm/package.json': JSON.stringify({ name: 'mono', private: true }),
      'pnpm/pnpm-lock.yaml': 'lockfileVersion: 9.0\n',
      'pnpm/pnpm-workspace.yaml': "packages:\n  - 'apps/*'   # the apps\n  - \"libs/**\"\n  - '!libs/legacy'\ncatalog:\n  react: ^18\n",
      'pnpm/apps/web/package.json': pkg('web', { test: 'vitest' }, { ui: 'workspace:*' }),
      'pnpm/libs/ui/package.json': pkg('ui', { test: 'vitest' }),
      'pnpm/libs/legacy/package.json': pkg('legacy', { test: 'exit 1' }),
      'plain/package.json': pkg('plain', { test: 'true' }),
      'cycle/package.json': JSON.stringify({ name: 'cycle', private: true, workspaces: ['p/*'] }),
      'cycle/p/a/package.json': pkg('a', { test: 'true' }, { b: '*' }),
      'cycle/p/b/package.json': pkg('b', { test: 'true' }, { a: '*' }),
    });
  });
  after(() => cleanup());

  test('--workspaces runs the task in every package that has it, dependencies first', async () => {
    const run = await roost(['run', 'test', '--workspaces', '--json'], { cwd: ws() });
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('run', run.json);
    assert.deepEqual(doc.workspaces.map((w: { name: string; exitCode: number }) => [w.name, w.exitCode]), [['@shop/util', 0], ['@shop/lib', 0], ['@shop/app', 0]]);
    assert.equal(doc.root, ws());
    assert.deepEqual(await order(), ['util', 'lib', 'app'], 'each ran in its own folder, in that order');
    await rm(join(ws(), 'order.log'));
  });

  test('from inside a package, --workspaces still finds the whole workspace; --dry-run runs nothing', async () => {
    const dry = await roost(['run', 'test', '--workspaces', '--dry-run'], { cwd: join(ws(), 'packages/app') });
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(dry.stdout, '@shop/util: npm run test\n@shop/lib: npm run test\n@shop/app: npm run test');
  });

  test('--workspace runs one package, named or by folder; extra arguments reach its script', async () => {
    const byName = await roost(['run', 'test', '--workspace', '@shop/lib'], { cwd: ws() });
    assert.equal(byName.code, 0, byName.stderr);
    assert.deepEqual(await order(), ['lib']);
    const byFolder = await roost(['run', 'test', '--workspace', 'tools/cli', '--dry-run', '--json', '--', '--watch'], { cwd: ws() });
    const doc = assertSchema('run', byFolder.json);
    assert.equal(doc.root, join(ws(), 'tools/cli'));
    assert.deepEqual(doc.argv, ['npm', 'run', 'test', '--', '--watch']);
    await rm(join(ws(), 'order.log'));
  });

  test('the first failing package stops the run and its exit code is roost\'s', async () => {
    const run = await roost(['run', 'check', '--workspaces', '--json'], { cwd: ws() });
    assert.equal(run.code, 4);
    const doc = assertSchema('run', run.json);
    assert.equal(doc.ok, false);
    assert.deepEqual(doc.workspaces.map((w: { name: string; exitCode: number }) => [w.name, w.exitCode]), [['@shop/util', 0], ['@shop/lib', 4]]);
    assert.match(run.stderr, /check failed in @shop\/lib \(exit 4\); 1 package\(s\) not run/);
    assert.deepEqual(await order(), ['util'], 'app, which depends on lib, did not run');
  });

  test('pnpm-workspace.yaml: globs, ** and exclusions, run with pnpm', async () => {
    const dry = await roost(['run', 'test', '--workspaces', '--dry-run', '--json'], { cwd: join(dir, 'pnpm') });
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(assertSchema('run', dry.json).workspaces.map((w: { name: string; command: string }) => [w.name, w.command]), [['ui', 'pnpm run test'], ['web', 'pnpm run test']]);
  });

  test('bad input: a cycle, an unknown package, no workspace, no task, or mixed flags are clear errors', async () => {
    const cycle = await roost(['run', 'test', '--workspaces'], { cwd: join(dir, 'cycle') });
    assert.equal(cycle.code, 1);
    assert.match(cycle.stderr, /workspace dependency cycle: a → b → a/);
    const unknown = await roost(['run', 'test', '--workspace', '@shop/ap', '--json'], { cwd: ws() });
    assert.equal(unknown.code, 2);
    assert.match(assertSchema('error', unknown.json).error.message, /no workspace package "@shop\/ap"; did you mean "@shop\/app"\?/);
    const none = await roost(['run', 'build', '--workspaces'], { cwd: join(dir, 'pnpm/libs/ui') });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no workspace package has a "build" script/);
    const outside = await roost(['run', 'test', '--workspaces'], { cwd: join(dir, 'plain') });
    assert.equal(outside.code, 2);
    assert.match(outside.stderr, /no workspace here: no package.json "workspaces" or pnpm-workspace.yaml/);
    for (const args of [['run', '--workspaces'], ['run', 'test', '--workspaces', '--workspace', 'x'], ['run', 'test', '--workspaces', '--stack', 'node']]) {
      const run = await roost(args, { cwd: ws() });
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    }
  });
});
