// The default context plugin on a real git repository with two stacks, two commits, an uncommitted
// change and an untracked file; and outside git.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git, tempDir, tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const PACKAGE_JSON = '{"name":"demo","scripts":{"test":"node --test","build":"tsc"}}\n';
const MAKEFILE = 'lint:\n\techo lint\n';

describe('default plugin: context', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo({ 'package.json': PACKAGE_JSON, Makefile: MAKEFILE, 'src/a.ts': 'export {};\n' });
    await writeFile(join(repo.work, 'src/a.ts'), 'export const a = 1;\n');
    await git(repo.work, 'commit', '-q', '-am', 'give a a value');
    await writeFile(join(repo.work, 'src/a.ts'), 'export const a = 2;\n');
    await writeFile(join(repo.work, 'notes.md'), '# notes\n');
    const install = await env.run(['plugins', 'install', '--community'], repo.work);
    assert.equal(install.code, 0, install.stderr);
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('context --json: stacks and tasks as roost run sees them, git state, commits, sizes', async () => {
    const run = await env.run(['context', '--json'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('context', run.json);
    assert.deepEqual([doc.name, doc.root], ['work', repo.work]);
    assert.deepEqual(doc.stacks, [{ id: 'make', tool: 'make', marker: 'Makefile' }, { id: 'node', tool: 'npm', marker: 'package.json' }]);
    assert.deepEqual(doc.tasks, [
      { name: 'lint', stack: 'make', command: 'make lint' },
      { name: 'test', stack: 'node', command: 'npm run test' },
      { name: 'build', stack: 'node', command: 'npm run build' },
    ]);
    assert.deepEqual([doc.git.branch, doc.git.dirty, doc.git.remote], ['main', true, null]);
    assert.deepEqual(doc.git.changes, [{ status: 'M', path: 'src/a.ts' }, { status: '??', path: 'notes.md' }]);
    assert.deepEqual(doc.git.commits.map((c: any) => [c.subject, c.author]), [['give a a value', 'Test Author'], ['initial', 'Test Author']]);
    assert.equal(doc.git.commits[0].hash, (await git(repo.work, 'rev-parse', 'HEAD')).trim());
    const bytes = PACKAGE_JSON.length + MAKEFILE.length + 'export const a = 2;\n'.length + '# notes\n'.length;
    assert.deepEqual([doc.sizes.files, doc.sizes.bytes], [4, bytes]);
    assert.deepEqual(doc.sizes.byExtension.map((e: any) => [e.extension, e.files]), [['.json', 1], ['.ts', 1], ['(none)', 1], ['.md', 1]]);
  });

  test('context prints a readable summary; --commits limits the log', async () => {
    const run = await env.run(['context', '--commits', '1'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Stacks: make \(make, Makefile\), node \(npm, package\.json\)$/m);
    assert.match(run.stdout, /^ {2}test: npm run test$/m);
    assert.match(run.stdout, /^Git: branch main, 2 uncommitted changes$/m);
    assert.match(run.stdout, /^ {2}[0-9a-f]{10} \d{4}-\d{2}-\d{2} Test Author: give a a value$/m);
    assert.doesNotMatch(run.stdout, /: initial$/m);
  });

  test('outside git, git is null; a bad --commits exits 2', async () => {
    const { dir, cleanup } = await tempDir('roost-context-nogit-');
    try {
      await writeFile(join(dir, 'go.mod'), 'module demo\n');
      const run = await env.run(['context', '--json'], dir);
      assert.equal(run.code, 0, run.stderr);
      const doc = assertSchema('context', run.json);
      assert.deepEqual([doc.git, doc.stacks.map((s: any) => s.id), doc.sizes.files], [null, ['go'], 1]);
    } finally {
      await cleanup();
    }
    const bad = await env.run(['context', '--commits', '50', '--json'], repo.work);
    assert.equal(bad.code, 2);
    assert.match(assertSchema('error', bad.json).error.message, /--commits "50" is not a whole number from 0 to 20/);
  });
});
