// The default metrics plugin: churn from git history (through the exec capability) and test counts
// per stack, in a temporary repository with two authors and tests in four stacks.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { tempDir, tempGitRepo, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const FILES = {
  'package.json': '{"name":"demo","scripts":{"test":"node --test"}}\n',
  'src/a.test.ts': "import { test } from 'node:test';\ntest('one', () => {});\ntest('two', () => {});\nit.skip('three', () => {});\n",
  'src/__tests__/b.js': "it('four', () => {});\n",
  'src/app.ts': 'export const app = 1;\n',
  'tests/test_api.py': 'def test_get():\n    pass\n\nasync def test_post():\n    pass\n\ndef helper():\n    pass\n',
  'pkg/x_test.go': 'package pkg\n\nfunc TestX(t *testing.T) {}\nfunc TestY(t *testing.T) {}\nfunc helper() {}\n',
  'src/lib.rs': 'pub fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn works() {}\n}\n',
  'tests/integration.rs': '#[test]\nfn a() {}\n#[tokio::test]\nasync fn b() {}\n',
  'node_modules/dep/index.test.js': "it('not ours', () => {});\n",
  // AVA's layout: any file in test/ that calls test(), its helpers and _-files left out.
  'test/parse.ts': "import test from 'ava';\ntest('parses', (t) => t.pass());\ntest.serial('in order', async (t) => t.pass());\ntest.failing('known bug', (t) => t.fail());\ntest.before(() => {});\n",
  'test/helpers/make.ts': "export const test = (name: string) => name;\ntest('not a case');\n",
  'test/_setup.js': "test('not a case either', () => {});\n",
  'test/types.d.ts': "declare function test(name: string): void;\n",
};

describe('default plugin: metrics', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo(FILES);
    const grown = Array.from({ length: 12 }, (_, i) => `export const v${i} = ${i};\n`).join('');
    await writeFile(join(repo.work, 'src/app.ts'), grown);
    await execa('git', ['commit', '-q', '-am', 'grow the app'], {
      cwd: repo.work,
      env: { GIT_AUTHOR_NAME: 'Other', GIT_AUTHOR_EMAIL: 'other@example.test', GIT_COMMITTER_NAME: 'Other', GIT_COMMITTER_EMAIL: 'other@example.test' },
    });
    const install = await env.run(['plugins', 'install', '--defaults'], repo.work);
    assert.equal(install.code, 0, install.stderr);
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('metrics --tests --json counts test files and cases per stack, skipping dependencies', async () => {
    const run = await env.run(['metrics', '--tests', '--json'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('metrics', run.json);
    assert.equal(doc.churn, undefined);
    assert.deepEqual(doc.tests, {
      stacks: [
        { stack: 'go', files: 1, cases: 2 },
        { stack: 'node', files: 3, cases: 7 },
        { stack: 'python', files: 1, cases: 2 },
        { stack: 'rust', files: 2, cases: 3 },
      ],
      files: 7,
      cases: 14,
    });
  });

  test('metrics --churn --json reads git history through exec', async () => {
    const run = await env.run(['metrics', '--churn', '--limit', '2', '--json'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('metrics', run.json);
    assert.equal(doc.tests, undefined);
    assert.equal(doc.churn.commits, 2);
    assert.equal(doc.churn.authors, 2);
    assert.equal(doc.churn.files.length, 2);
    assert.deepEqual(doc.churn.files[0], { path: 'src/app.ts', commits: 2, added: 13, removed: 1 });
    assert.deepEqual(doc.churn.files[1], { path: 'tests/test_api.py', commits: 1, added: 8, removed: 0 });
    const total = Object.values(FILES).reduce((n, text) => n + text.split('\n').length - 1, 0);
    assert.equal(doc.churn.linesAdded, total + 12);
    assert.equal(doc.churn.linesRemoved, 1);
  });

  test('metrics --json gives both; outside git churn is null, and --churn there is an error', async () => {
    const both = await env.run(['metrics', '--json'], repo.work);
    assert.equal(both.code, 0, both.stderr);
    const doc = assertSchema('metrics', both.json);
    assert.equal(doc.churn.commits, 2);
    assert.equal(doc.tests.cases, 14);

    const { dir, cleanup } = await tempDir('roost-metrics-nogit-');
    try {
      await writeTree(dir, { 'package.json': '{}', 'x.test.js': "test('a', () => {})\n" });
      const outside = await env.run(['metrics', '--json'], dir);
      assert.equal(outside.code, 0, outside.stderr);
      const plain = assertSchema('metrics', outside.json);
      assert.equal(plain.churn, null);
      assert.equal(plain.tests.cases, 1);
      const churn = await env.run(['metrics', '--churn', '--json'], dir);
      assert.equal(churn.code, 1);
      assert.match(assertSchema('error', churn.json).error.message, /git log failed/);
    } finally {
      await cleanup();
    }
  });

  test('metrics prints a readable report; bad flags are usage errors', async () => {
    const run = await env.run(['metrics'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Churn: 2 commits by 2 authors, \+\d+ -1$/m);
    assert.match(run.stdout, /^Tests: 7 files, 14 cases$/m);
    const bad = await env.run(['metrics', '--limit', 'lots'], repo.work);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--limit must be a positive whole number/);
    const since = await env.run(['metrics', '--churn', '--since', "x'; rm -rf /"], repo.work);
    assert.equal(since.code, 2);
    assert.match(since.stderr, /is not a date git understands/);
  });
});
