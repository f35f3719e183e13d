// Tasks a project writes down itself — fledge.toml [tasks], a justfile, Taskfile.yml, a Makefile —
// are found by `roost run` (listed alone, run by name) and win over the tasks inferred from a stack.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { roost, tempDir, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

/** A justfile as projects write them: settings, assignments, aliases, attributes, parameters of every kind. */
const JUSTFILE = [
  'set shell := ["bash", "-c"]',
  'version := "1"',
  'export RUST_LOG := "info"',
  'alias t := test',
  'alias b := build',
  'alias _h := helper',
  '',
  '# run the tests',
  'test *args:',
  '    echo test {{args}}',
  '',
  'build target="release" +features="":',
  '    echo build {{target}} {{features}}',
  '',
  'deploy env=`echo prod`: build',
  '    echo deploy {{env}}',
  '',
  '[private]',
  'helper:',
  '    echo helper',
  '',
  '_hidden:',
  '    echo hidden',
  '',
  "[group('ci')]",
  '[no-cd]',
  '@lint: build # after the build',
  '    echo lint',
  '',
].join('\n');
/** The real just (rust-just's binary), and a PATH without any just on it. */
const JUST_BIN = dirname(createRequire(import.meta.url).resolve(`rust-just-${process.platform}-${process.arch}/package.json`)) + '/bin';
const withoutJust = (process.env.PATH ?? '').split(delimiter).filter((dir) => !existsSync(join(dir, 'just'))).join(delimiter);

describe('roost run: task files', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ dir, cleanup } = await tempDir('roost-taskfiles-'));
    await writeTree(dir, {
      'make/Makefile': '.PHONY: test\nVERSION := 1\ntest:\n\t@echo make-test\n%.o: %.c\n\tcc $<\nbuild: test\n\t@echo make-build\n',
      'make/Cargo.toml': '[package]\nname = "demo"\nversion = "0.1.0"\n',
      'fledge/fledge.toml': '[tasks]\ngreet = "echo fledge-greet"\n\n[tasks.shout]\ncmd = "echo SHOUT"\n',
      'just-real/justfile': JUSTFILE,
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

  test('a real justfile: recipes with defaults, backticks and variadic parameters, aliases; private recipes left out; the same with just installed and without', async () => {
    for (const [how, PATH] of [['read by roost', withoutJust], ['told by just', `${JUST_BIN}${delimiter}${withoutJust}`]] as const) {
      const listing = assertSchema('run', (await roost(['run', '--json'], { cwd: `${dir}/just-real`, env: { PATH } })).json);
      assert.deepEqual(listing.tasks.map((t: { name: string }) => t.name), ['test', 'build', 'deploy', 'lint', 't', 'b'], how);
    }
    const run = await roost(['run', 'b', '--', 'debug'], { cwd: `${dir}/just-real`, env: { PATH: `${JUST_BIN}${delimiter}${withoutJust}` } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'build debug', 'an alias runs its recipe, with the arguments');
  });

  test('justfile recipes and Taskfile tasks', async () => {
    const just = assertSchema('run', (await roost(['run', '--json'], { cwd: `${dir}/just` })).json);
    assert.deepEqual(just.tasks.map((t: { name: string; command: string }) => [t.name, t.command]), [['test', 'just test'], ['lint', 'just lint']]);
    const task = await roost(['run', 'test', '--dry-run', '--', '-v'], { cwd: `${dir}/task` });
    assert.equal(task.stdout, 'task test -- -v');
  });

  test('a task runner that is not installed: the error says where to get it', async () => {
    const run = await roost(['run', 'lint', '--json'], { cwd: `${dir}/just`, env: { PATH: withoutJust } });
    assert.equal(assertSchema('error', run.json).error.code, 'COMMAND_NOT_FOUND');
    assert.match(run.json.error.message, /^just: command not found \(is it installed and on PATH\?\); install just: https:\/\/just\.systems/);
  });
});
