// `roost work start` / `work push` against temporary repositories with a bare origin, with the real
// plugin system's pre_push hooks (a private ROOST_HOME).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { git, roost, tempDir, tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

describe('roost work', () => {
  let plugins: PluginHome;
  let isolated: { dir: string; cleanup: () => Promise<void> };
  // No user or system git config leaks in: identity comes from the test repository alone.
  const env = () => ({ ...plugins.env, HOME: isolated.dir, GIT_CONFIG_NOSYSTEM: '1' });
  before(async () => {
    plugins = await pluginHome();
    isolated = await tempDir();
  });
  after(async () => {
    await plugins.cleanup();
    await isolated.cleanup();
  });

  const repo = async () => tempGitRepo({ 'README.md': '# work\n', 'src.txt': 'one\n' }, { origin: true });

  it('starts <author>/<kind>/<name> from user.name, pushes it with upstream', async () => {
    const r = await repo();
    try {
      const result = await roost(['work', 'start', 'Add Login!', '--issue', '42', '--json'], { cwd: r.work, env: env() });
      assert.equal(result.code, 0, result.stderr);
      const doc = assertSchema('work-start', result.json);
      assert.equal(doc.branch, 'test-author/feat/42-add-login');
      assert.deepEqual([doc.author, doc.kind, doc.name, doc.issue, doc.base], ['test-author', 'feat', 'add-login', 42, 'main']);
      assert.equal(await git(r.work, 'rev-parse', '--abbrev-ref', 'HEAD'), doc.branch);
      assert.equal(await git(r.work, 'rev-parse', '--abbrev-ref', '@{upstream}'), `origin/${doc.branch}`);
      assert.equal(await git(r.origin!, 'rev-parse', `refs/heads/${doc.branch}`), doc.commit);

      await git(r.work, 'switch', '-q', 'main');
      const fix = await roost(['work', 'start', 'null check', '--kind', 'Fix'], { cwd: r.work, env: env() });
      assert.equal(fix.code, 0, fix.stderr);
      assert.match(fix.stdout, /Started test-author\/fix\/null-check \(from main\), pushed to origin\/test-author\/fix\/null-check/);
      const again = await roost(['work', 'start', 'null check', '--kind', 'fix', '--json'], { cwd: r.work, env: env() });
      assert.equal(again.code, 1, again.stderr);
      assert.equal(assertSchema('error', again.json).error.code, 'CONFLICT');
    } finally {
      await r.cleanup();
    }
  });

  it('refuses a dirty tree, a missing origin, a missing author and a bad --issue', async () => {
    const r = await repo();
    try {
      await writeFile(join(r.work, 'src.txt'), 'changed\n');
      const dirty = await roost(['work', 'start', 'x', '--json'], { cwd: r.work, env: env() });
      assert.equal(dirty.code, 1, dirty.stderr);
      assert.equal(assertSchema('error', dirty.json).error.code, 'DIRTY_TREE');
      assert.match(dirty.json.error.message, /uncommitted changes \(src\.txt\)/);
      assert.equal(await git(r.work, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main', 'no branch was made');
      await git(r.work, 'checkout', '--', 'src.txt');

      const bad = await roost(['work', 'start', 'x', '--issue', '4x', '--json'], { cwd: r.work, env: env() });
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(assertSchema('error', bad.json).error.message, /--issue must be a positive whole number/);
      const missing = await roost(['work', 'start', '--json'], { cwd: r.work, env: env() });
      assert.equal(missing.code, 2, missing.stderr);
      assertSchema('error', missing.json);

      await git(r.work, 'config', '--unset', 'user.name');
      const anonymous = await roost(['work', 'start', 'x', '--json'], { cwd: r.work, env: env() });
      assert.equal(anonymous.code, 1, anonymous.stderr);
      assert.match(assertSchema('error', anonymous.json).error.message, /git user\.name is not set/);
      await git(r.work, 'config', 'user.name', 'Test Author');

      await git(r.work, 'remote', 'remove', 'origin');
      const noOrigin = await roost(['work', 'start', 'x', '--json'], { cwd: r.work, env: env() });
      assert.equal(noOrigin.code, 1, noOrigin.stderr);
      assert.equal(assertSchema('error', noOrigin.json).error.code, 'NO_REMOTE');
    } finally {
      await r.cleanup();
    }
  });

  it('pushes: commits every change with a message from the branch, then nothing left to push', async () => {
    const r = await repo();
    try {
      assert.equal((await roost(['work', 'start', 'add login', '--issue', '7'], { cwd: r.work, env: env() })).code, 0);
      await writeFile(join(r.work, 'src.txt'), 'two\n');
      await writeFile(join(r.work, 'new.txt'), 'new\n');
      const result = await roost(['work', 'push', '--json'], { cwd: r.work, env: env() });
      assert.equal(result.code, 0, result.stderr);
      const doc = assertSchema('work-push', result.json);
      assert.deepEqual([doc.committed, doc.message, doc.files, doc.pushed, doc.commits], [true, 'feat: add login (#7)', 2, true, 1]);
      assert.equal(await git(r.origin!, 'rev-parse', 'refs/heads/test-author/feat/7-add-login'), doc.commit);
      assert.equal(await git(r.origin!, 'log', '-1', '--format=%s', doc.commit), 'feat: add login (#7)');

      const idle = await roost(['work', 'push', '--json'], { cwd: r.work, env: env() });
      assert.deepEqual([assertSchema('work-push', idle.json).committed, idle.json.pushed], [false, false]);

      await writeFile(join(r.work, 'src.txt'), 'three\n');
      const custom = await roost(['work', 'push', '--message', 'Tidy the source'], { cwd: r.work, env: env() });
      assert.equal(custom.code, 0, custom.stderr);
      assert.match(custom.stdout, /Committed 1 file \("Tidy the source"\)\. Pushed 1 commit/);
      assert.equal(await git(r.origin!, 'log', '-1', '--format=%s', 'refs/heads/test-author/feat/7-add-login'), 'Tidy the source');
    } finally {
      await r.cleanup();
    }
  });

  it('refuses to push the default branch: main, or whatever origin/HEAD names', async () => {
    const r = await repo();
    try {
      await writeFile(join(r.work, 'src.txt'), 'on main\n');
      const main = await roost(['work', 'push', '--json'], { cwd: r.work, env: env() });
      assert.equal(main.code, 1, main.stderr);
      assert.equal(assertSchema('error', main.json).error.code, 'DEFAULT_BRANCH');
      assert.match(await git(r.work, 'status', '--porcelain'), /^ M src\.txt$/, 'nothing was committed');

      await git(r.work, 'switch', '-q', '-c', 'trunk');
      await git(r.work, 'push', '-q', 'origin', 'trunk');
      await git(r.work, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/trunk');
      const trunk = await roost(['work', 'push', '--json'], { cwd: r.work, env: env() });
      assert.equal(trunk.code, 1, trunk.stderr);
      assert.match(assertSchema('error', trunk.json).error.message, /refusing to push the default branch trunk/);
    } finally {
      await r.cleanup();
    }
  });

  it('never forces: a push the origin rejects fails with git’s reason', async () => {
    const r = await repo();
    try {
      assert.equal((await roost(['work', 'start', 'race'], { cwd: r.work, env: env() })).code, 0);
      const other = join(r.root, 'other');
      await execa('git', ['clone', '-q', '-b', 'test-author/feat/race', r.origin!, other]);
      await writeFile(join(other, 'theirs.txt'), 'theirs\n');
      await git(other, 'add', '-A');
      await git(other, 'commit', '-q', '-m', 'theirs');
      await git(other, 'push', '-q');
      const theirs = await git(r.origin!, 'rev-parse', 'refs/heads/test-author/feat/race');
      await writeFile(join(r.work, 'ours.txt'), 'ours\n');
      const result = await roost(['work', 'push', '--json'], { cwd: r.work, env: env() });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(assertSchema('error', result.json).error.code, 'GIT_ERROR');
      assert.match(result.json.error.message, /git push failed: .*rejected/);
      assert.equal(await git(r.origin!, 'rev-parse', 'refs/heads/test-author/feat/race'), theirs);
    } finally {
      await r.cleanup();
    }
  });

  it('runs pre_push hooks of installed plugins first; a failing hook aborts with exit 1', async () => {
    await plugins.install('hooked');
    const r = await repo();
    try {
      assert.equal((await roost(['work', 'start', 'hooked'], { cwd: r.work, env: env() })).code, 0);
      await writeFile(join(r.work, '.block-push'), '');
      await writeFile(join(r.work, 'src.txt'), 'blocked\n');
      const blocked = await roost(['work', 'push', '--json'], { cwd: r.work, env: env() });
      assert.equal(blocked.code, 1, blocked.stderr);
      assert.equal(assertSchema('error', blocked.json).error.code, 'HOOK_FAILED');
      assert.match(blocked.json.error.message, /pre_push hook failed, nothing was pushed: cli-plugin-hooked \(exit 3\): push blocked by \.block-push/);
      assert.match(await git(r.work, 'status', '--porcelain'), /M src\.txt/, 'changes left uncommitted');
      assert.equal(await git(r.origin!, 'rev-parse', 'refs/heads/test-author/feat/hooked'), await git(r.work, 'rev-parse', 'HEAD'));

      await git(r.work, 'clean', '-qf', '.block-push');
      assert.equal(existsSync(join(r.work, '.block-push')), false);
      const passed = await roost(['work', 'push', '--json'], { cwd: r.work, env: env() });
      assert.equal(passed.code, 0, passed.stderr);
      assert.equal(assertSchema('work-push', passed.json).hooksRan, true);
      assert.match(passed.stderr, /pre_push checks passed/);
    } finally {
      await r.cleanup();
    }
  });
});
