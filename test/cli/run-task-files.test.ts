// Tasks a project writes down itself — fledge.toml [tasks], a justfile, Taskfile.yml, a Makefile —
// are found by `roost run` (listed alone, run by name) and win over the tasks inferred from a stack.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { roost, tempDir, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

describe('roost run: task files', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ dir, cleanup } = await tempDir('roost-taskfiles-'));
    await writeTree(dir, {
      'make/Makefile': '.PHONY: test\nVERSION := 1\ntest:\n\t@echo make-test\n%.o: %.c\n\tcc $<\nbuild: test\n\t@echo make-build\n',
      'make/Cargo.toml': '[package]\nname = "demo"\nversion = "0.1.0"\n',
      'fledge/fledge.toml': '[tasks]\ngreet = "echo fledge-greet"\n\n[tasks.shout]\ncmd = "echo SHOUT"\n',
      'just/justfile': 'set shell := ["bash", "-c"]\nversion := "1"\n\n# run the tests\ntest *args:\n    cargo test {{args}}\n\n@lint:\n    cargo clippy\n',
      'task/Taskfile.yml': 'version: "3"\n\ntasks:\n  test:\n    cmds:\n      - go test ./...\n  fmt:\n    cmds:\n      - go fmt ./...\n',
    });
  });
  after(() => cleanup());

  test('a Makefile: targets listed (no pattern rules, no variables), run, and preferred over cargo', async () => {
    const listing = assertSchema('run', (await roost(['run', '--json'], { cwd: `${dir}/make` })).json);
    assert.deepEqual(listing.stacks.map((s: { id: string }) => s.id), ['make', 'rust']);
    const make = listing.tasks.filter((t: { stack: string }) => t.stack === 'make').map((t: { name: string }) => t.name);
    assert.deepEqual(make, ['test', 'build']);
    const run = await roost(['run', 'test'], { cwd: `${dir}/make` });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'make-test');
    assert.equal((await roost(['run', 'check', '--dry-run'], { cwd: `${dir}/make` })).stdout, 'cargo check', 'the stack still offers the rest');
  });

  test('fledge.toml tasks run through sh with the extra arguments', async () => {
    const run = await roost(['run', 'greet', '--', 'and more'], { cwd: `${dir}/fledge` });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'fledge-greet and more');
    assert.equal((await roost(['run', 'shout'], { cwd: `${dir}/fledge` })).stdout, 'SHOUT');
  });

  test('justfile recipes and Taskfile tasks', async () => {
    const just = assertSchema('run', (await roost(['run', '--json'], { cwd: `${dir}/just` })).json);
    assert.deepEqual(just.tasks.map((t: { name: string; command: string }) => [t.name, t.command]), [['test', 'just test'], ['lint', 'just lint']]);
    const task = await roost(['run', 'test', '--dry-run', '--', '-v'], { cwd: `${dir}/task` });
    assert.equal(task.stdout, 'task test -- -v');
  });

  test('a task runner that is not installed: the error says where to get it', async (t) => {
    if ((await execa('sh', ['-c', 'command -v just'], { reject: false })).exitCode === 0) return t.skip('just is installed here');
    const run = await roost(['run', 'lint', '--json'], { cwd: `${dir}/just` });
    assert.equal(assertSchema('error', run.json).error.code, 'COMMAND_NOT_FOUND');
    assert.match(run.json.error.message, /^just: command not found \(is it installed and on PATH\?\); install just: https:\/\/just\.systems/);
  });
});
