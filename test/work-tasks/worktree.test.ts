// A work task's worktree across a crash, on real git repositories: one git finished making is kept with
// the work in it; one whose making a kill -9 interrupted (git's "initializing" lock still there, or its
// HEAD still git's placeholder, so that `main..HEAD` is no revision range, or its folder never written
// while git's registration of it stays locked, or its branch's ref lock file left) is made again.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addWorktree, changedFiles, removeWorktree } from '../../extensions/work-tasks/git.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd, encoding: 'utf8' });

describe('work-task worktrees after a crash', () => {
  let repo: string;
  before(async () => {
    repo = await mkdtemp(join(tmpdir(), 'roost-worktree-'));
    git(repo, 'init', '-q', '-b', 'main');
    await writeFile(join(repo, 'README.md'), '# widgets\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
  });
  after(() => rm(repo, { recursive: true, force: true }));

  it('keeps a finished worktree and the work in it', async () => {
    const dir = join(repo, '.roost-worktrees', 'kept');
    await addWorktree(repo, dir, 'task-kept', 'main');
    await writeFile(join(dir, 'answer.txt'), '42\n');
    await addWorktree(repo, dir, 'task-kept', 'main');
    assert.equal(await readFile(join(dir, 'answer.txt'), 'utf8'), '42\n');
    assert.deepEqual(await changedFiles(dir, 'main'), ['answer.txt']);
  });

  it('makes again a worktree whose checkout was interrupted (git\'s initializing lock left behind)', async () => {
    const dir = join(repo, '.roost-worktrees', 'locked');
    git(repo, 'worktree', 'add', '-q', '-b', 'task-locked', dir, 'main');
    await writeFile(join(repo, '.git', 'worktrees', 'locked', 'locked'), 'initializing\n');
    await unlink(join(dir, 'README.md')); // the checkout had not got that far
    await addWorktree(repo, dir, 'task-locked', 'main');
    assert.equal(await readFile(join(dir, 'README.md'), 'utf8'), '# widgets\n');
    assert.equal(existsSync(join(repo, '.git', 'worktrees', 'locked', 'locked')), false);
    assert.deepEqual(await changedFiles(dir, 'main'), []);
    assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'task-locked');
  });

  it('makes again a worktree whose folder git had not written yet (registered, locked, missing)', async () => {
    const dir = join(repo, '.roost-worktrees', 'missing');
    git(repo, 'worktree', 'add', '-q', '-b', 'task-missing', dir, 'main');
    git(repo, 'worktree', 'lock', '--reason', 'initializing', dir);
    await rm(dir, { recursive: true, force: true });
    assert.throws(() => git(repo, 'worktree', 'add', '-q', dir, 'task-missing'), /missing but locked worktree/);
    await addWorktree(repo, dir, 'task-missing', 'main');
    assert.deepEqual(await changedFiles(dir, 'main'), []);
    assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'task-missing');
  });

  it('forgets such a worktree when its task ends: no locked registration is left behind', async () => {
    const dir = join(repo, '.roost-worktrees', 'ended');
    git(repo, 'worktree', 'add', '-q', '-b', 'task-ended', dir, 'main');
    git(repo, 'worktree', 'lock', '--reason', 'initializing', dir);
    await rm(dir, { recursive: true, force: true });
    await removeWorktree(repo, dir);
    assert.doesNotMatch(git(repo, 'worktree', 'list'), /ended/);
    assert.equal(existsSync(join(repo, '.git', 'worktrees', 'ended')), false);
  });

  it('makes a worktree whose branch git was creating when it was killed (the ref\'s lock file left behind)', async () => {
    const dir = join(repo, '.roost-worktrees', 'ref-locked');
    await mkdir(join(repo, '.git', 'refs', 'heads', 'builder-1', 'feat'), { recursive: true });
    await writeFile(join(repo, '.git', 'refs', 'heads', 'builder-1', 'feat', 'task-ref.lock'), '');
    assert.throws(() => git(repo, 'worktree', 'add', '-q', '-b', 'builder-1/feat/task-ref', dir, 'main'), /cannot lock ref/);
    await addWorktree(repo, dir, 'builder-1/feat/task-ref', 'main');
    assert.deepEqual(await changedFiles(dir, 'main'), []);
    assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'builder-1/feat/task-ref');
  });

  it('makes again a worktree whose HEAD git had not set yet (its placeholder, the null commit id)', async () => {
    const dir = join(repo, '.roost-worktrees', 'half');
    git(repo, 'worktree', 'add', '-q', '-b', 'task-half', dir, 'main');
    await writeFile(join(repo, '.git', 'worktrees', 'half', 'HEAD'), `${'0'.repeat(40)}\n`);
    await assert.rejects(changedFiles(dir, 'main'), /Invalid revision range main\.\.HEAD/);
    await addWorktree(repo, dir, 'task-half', 'main');
    assert.deepEqual(await changedFiles(dir, 'main'), []);
    assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'task-half');
  });
});
