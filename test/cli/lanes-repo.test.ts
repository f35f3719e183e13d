// Lanes repositories: `lanes create` makes one, `lanes publish` pushes it to a bare origin (never
// forced), `lanes import` clones it from ROOST_GIT_HOST into a project where its lanes then run.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { git, gitEnv, roost, tempDir, tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

describe('lanes repositories', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let host: string;
  before(async () => {
    ({ dir, cleanup } = await tempDir());
    host = join(dir, 'host');
    await mkdir(join(host, 'acme'), { recursive: true });
  });
  after(() => cleanup());

  it('creates a lanes repository with lanes.toml, a README and one commit', async () => {
    const result = await roost(['lanes', 'create', 'shared', '--json'], { cwd: dir, env: gitEnv });
    assert.equal(result.code, 0, result.stderr);
    const doc = assertSchema('lanes-create', result.json);
    assert.equal(doc.path, join(dir, 'shared'));
    assert.deepEqual(doc.files, ['lanes.toml', 'README.md']);
    assert.equal(await git(doc.path, 'rev-parse', 'HEAD'), doc.commit);
    assert.equal(await git(doc.path, 'status', '--porcelain'), '');
    assert.match(await readFile(join(doc.path, 'lanes.toml'), 'utf8'), /\[lanes\.check\]/);
    const list = await roost(['lanes', 'list', '--json'], { cwd: doc.path });
    assert.deepEqual(assertSchema('lanes-list', list.json).lanes.map((l: any) => l.name), ['check']);
  });

  it('refuses to create over a non-empty directory or with a bad name', async () => {
    const again = await roost(['lanes', 'create', 'shared', '--json'], { cwd: dir, env: gitEnv });
    assert.equal(again.code, 1, again.stderr);
    assert.equal(assertSchema('error', again.json).error.code, 'CONFLICT');
    const bad = await roost(['lanes', 'create', '../escape', '--json'], { cwd: dir, env: gitEnv });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(assertSchema('error', bad.json).error.message, /invalid repository name/);
    assert.equal(existsSync(join(dir, '..', 'escape')), false);
  });

  it('leaves nothing behind when the commit fails (no git identity), so a retry works', async () => {
    const noIdentity = { GIT_AUTHOR_NAME: '', GIT_COMMITTER_NAME: '', GIT_AUTHOR_EMAIL: '', GIT_COMMITTER_EMAIL: '' };
    const failed = await roost(['lanes', 'create', 'retry', '--json'], { cwd: dir, env: noIdentity });
    assert.equal(failed.code, 1, failed.stderr);
    assert.equal(assertSchema('error', failed.json).error.code, 'GIT_ERROR');
    assert.match(failed.json.error.message, /git commit failed: .*ident/i);
    assert.equal(existsSync(join(dir, 'retry')), false);
    const retried = await roost(['lanes', 'create', 'retry', '--json'], { cwd: dir, env: gitEnv });
    assert.equal(retried.code, 0, retried.stderr);
  });

  it('publishes to origin, says when there is nothing new, and refuses dirty or behind', async () => {
    const repo = join(dir, 'shared');
    const origin = join(host, 'acme', 'shared.git');
    await execa('git', ['init', '-q', '--bare', '-b', 'main', origin]);
    const noRemote = await roost(['lanes', 'publish', '--json'], { cwd: repo });
    assert.equal(noRemote.code, 1, noRemote.stderr);
    assert.match(assertSchema('error', noRemote.json).error.message, /no remote "origin"; add one with: git remote add origin/);
    await git(repo, 'remote', 'add', 'origin', origin);

    const first = await roost(['lanes', 'publish', '--json'], { cwd: repo });
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual([assertSchema('lanes-publish', first.json).pushed, first.json.commits], [true, 1]);
    assert.equal(await git(origin, 'rev-parse', 'main'), first.json.commit);
    const second = await roost(['lanes', 'publish', '--json'], { cwd: repo });
    assert.deepEqual([assertSchema('lanes-publish', second.json).pushed, second.json.commits], [false, 0]);

    await writeFile(join(repo, 'lanes.toml'), `${await readFile(join(repo, 'lanes.toml'), 'utf8')}\n[lanes.fast]\nsteps = ["lint"]\n`);
    const dirty = await roost(['lanes', 'publish', '--json'], { cwd: repo });
    assert.equal(dirty.code, 1, dirty.stderr);
    assert.equal(assertSchema('error', dirty.json).error.code, 'DIRTY_TREE');
    await git(repo, 'commit', '-q', '-am', 'add fast lane');
    const third = await roost(['lanes', 'publish'], { cwd: repo });
    assert.equal(third.code, 0, third.stderr);
    assert.match(third.stdout, /Published 1 commit of main/);

    // Someone else pushes; our older clone must not overwrite their work.
    const other = join(dir, 'other');
    await execa('git', ['clone', '-q', origin, other]);
    await writeFile(join(other, 'NOTES.md'), 'theirs\n');
    await git(other, 'add', '-A');
    await git(other, 'commit', '-q', '-m', 'their change');
    await git(other, 'push', '-q', 'origin', 'main');
    const theirs = await git(origin, 'rev-parse', 'main');
    await writeFile(join(repo, 'README.md'), 'ours\n');
    await git(repo, 'commit', '-q', '-am', 'our change');
    const behind = await roost(['lanes', 'publish', '--json'], { cwd: repo });
    assert.equal(behind.code, 1, behind.stderr);
    assert.equal(assertSchema('error', behind.json).error.code, 'CONFLICT');
    assert.match(behind.json.error.message, /behind origin\/main by 1 commit; pull and merge first/);
    assert.equal(await git(origin, 'rev-parse', 'main'), theirs, 'origin untouched');
  });

  it('imports lanes from a directory host into a project without lanes.toml, and runs them', async () => {
    const { work, cleanup: done } = await tempGitRepo({ 'package.json': '{"scripts":{"lint":"node -e \\"require(\'fs\').writeFileSync(\'linted\', \'\')\\""}}' });
    try {
      const result = await roost(['lanes', 'import', 'acme/shared', '--json'], { cwd: work, env: { ROOST_GIT_HOST: host } });
      assert.equal(result.code, 0, result.stderr);
      const doc = assertSchema('lanes-import', result.json);
      assert.equal(doc.url, join(host, 'acme', 'shared.git'));
      assert.equal(doc.path, join(work, '.roost', 'lanes', 'acme', 'shared'));
      assert.deepEqual([doc.updated, doc.lanes.sort()], [false, ['check', 'fast']]);
      assert.equal(await git(work, 'status', '--porcelain'), '', 'the clone is ignored by the project');

      const list = assertSchema('lanes-list', (await roost(['lanes', 'list', '--json'], { cwd: work })).json);
      assert.deepEqual(list.lanes.map((l: any) => [l.name, l.source]).sort(), [['check', 'acme/shared'], ['fast', 'acme/shared']]);
      const run = await roost(['lanes', 'run', 'fast', '--json'], { cwd: work });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(assertSchema('lanes-run', run.json).source, 'acme/shared');
      assert.ok(existsSync(join(work, 'linted')));

      const again = await roost(['lanes', 'import', 'acme/shared', '--json'], { cwd: work, env: { ROOST_GIT_HOST: pathToFileURL(host).href } });
      assert.equal(again.code, 0, again.stderr);
      assert.equal(assertSchema('lanes-import', again.json).updated, true);
      assert.equal(again.json.commit, await git(join(host, 'acme', 'shared.git'), 'rev-parse', 'main'));
    } finally {
      await done();
    }
  });

  it('lets local lanes win a name clash with imported ones', async () => {
    const { work, cleanup: done } = await tempGitRepo({ 'lanes.toml': '[lanes.check]\ndescription = "ours"\nsteps = [{ run = "true" }]\n' });
    try {
      const result = await roost(['lanes', 'import', 'acme/shared', '--json'], { cwd: work, env: { ROOST_GIT_HOST: host } });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(assertSchema('lanes-import', result.json).lanes, ['fast']);
      assert.deepEqual(result.json.shadowed, [{ name: 'check', by: 'local' }]);
      assert.match(result.stderr, /lane "check" of acme\/shared is hidden by the one from local/);
      const list = assertSchema('lanes-list', (await roost(['lanes', 'list', '--json'], { cwd: work })).json);
      assert.deepEqual(list.lanes.find((l: any) => l.name === 'check'), { name: 'check', description: 'ours', source: 'local', failFast: true, steps: 1 });
      assert.deepEqual(list.shadowed, [{ name: 'check', source: 'acme/shared', by: 'local' }]);
    } finally {
      await done();
    }
  });

  it('refuses bad repository names, missing repositories and repositories without valid lanes', async () => {
    const { work, cleanup: done } = await tempGitRepo();
    try {
      const env = { ROOST_GIT_HOST: host };
      for (const bad of ['acme', 'acme/shared/extra', '../x/y', 'acme/..']) {
        const result = await roost(['lanes', 'import', bad, '--json'], { cwd: work, env });
        assert.equal(result.code, 2, bad);
        assert.match(assertSchema('error', result.json).error.message, /expected <org>\/<repo>/);
      }
      const missing = await roost(['lanes', 'import', 'acme/nothing', '--json'], { cwd: work, env });
      assert.equal(missing.code, 1, missing.stderr);
      assert.equal(assertSchema('error', missing.json).error.code, 'NOT_FOUND');

      const plain = await tempGitRepo({ 'README.md': 'no lanes here\n' });
      await execa('git', ['clone', '-q', '--bare', plain.work, join(host, 'acme', 'plain.git')]);
      await plain.cleanup();
      const noLanes = await roost(['lanes', 'import', 'acme/plain', '--json'], { cwd: work, env });
      assert.equal(noLanes.code, 1, noLanes.stderr);
      assert.match(assertSchema('error', noLanes.json).error.message, /acme\/plain has no lanes\.toml/);
      assert.equal(existsSync(join(work, '.roost', 'lanes', 'acme', 'plain')), false, 'the failed clone is removed');
    } finally {
      await done();
    }
  });
});
