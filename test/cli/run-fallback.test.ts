// `roost run` when the tool a task names is not installed: the way the project's stacks already know to
// run the same task instead, said on stderr and in --json; without one, the tool's install hint as before.
// PATH holds only a folder of this test's, so what is "installed" is exactly what the test puts there.
import assert from 'node:assert/strict';
import { chmod, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { roost, tempDir, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

/** The interpreter itself (python3 on PATH may be a version manager's shim that needs more of PATH). */
const python3 = (await execa('python3', ['-c', 'import sys; print(sys.executable)'], { reject: false })).stdout.trim();

describe('roost run: a missing tool and its fallback', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  before(async () => {
    ({ dir, cleanup } = await tempDir('roost-fallback-'));
    const bin = join(dir, 'bin');
    await writeTree(dir, {
      'bin/cargo': '#!/bin/sh\necho "cargo ran: $*"\n',
      'rusty/Cargo.toml': '[package]\nname = "rusty"\nversion = "0.1.0"\n',
      'rusty/justfile': 'test:\n    cargo test --all-features\n',
      'pythonic/pyproject.toml': '[project]\nname = "pythonic"\nversion = "0.1.0"\n',
      'pythonic/uv.lock': 'version = 1\n',
      // What `python3 -m pytest` runs here: a module the interpreter imports from the project's folder.
      'pythonic/pytest.py': 'import sys\nprint("pytest ran:", sys.argv[1:])\n',
      'gopher/go.mod': 'module example.com/gopher\n\ngo 1.22\n',
    });
    await chmod(join(bin, 'cargo'), 0o755);
    if (python3) await symlink(python3, join(bin, 'python3'));
    env = { PATH: bin };
  });
  after(() => cleanup());

  it('runs the language stack\'s task when the task runner is missing, and says so', async () => {
    const run = await roost(['run', 'test'], { cwd: join(dir, 'rusty'), env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^cargo ran: test$/m);
    assert.match(run.stderr, /roost: just is not installed; the rust stack runs test too: running cargo test instead of just test/);
    const json = await roost(['run', 'test', '--dry-run', '--json'], { cwd: join(dir, 'rusty'), env });
    const doc = assertSchema('run', json.json);
    assert.deepEqual([doc.stack, doc.command, doc.fallback], ['rust', 'cargo test', { declared: 'just test', reason: 'just is not installed; the rust stack runs test too' }]);
  });

  it('runs a Python tool with the interpreter when uv is missing and python3 can import it', { skip: !python3 && 'no python3 here' }, async () => {
    const run = await roost(['run', 'test', '--', '-q'], { cwd: join(dir, 'pythonic'), env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /pytest ran: \['-q'\]/);
    assert.match(run.stderr, /roost: uv is not installed; python3 can import pytest: running python3 -m pytest -q instead of uv run pytest -q/);
  });

  it('without a way around, fails as before with the install hint', async () => {
    const run = await roost(['run', 'test', '--json'], { cwd: join(dir, 'gopher'), env });
    assert.equal(run.code, 1, run.stderr);
    const error = assertSchema('error', run.json).error;
    assert.equal(error.code, 'COMMAND_NOT_FOUND');
    assert.match(error.message, /go: command not found .*install Go/);
    // Nor does an installed tool get replaced: with just on PATH, the justfile's task runs.
    await writeFile(join(dir, 'bin/just'), '#!/bin/sh\necho "just ran: $*"\n', { mode: 0o755 });
    const declared = await roost(['run', 'test'], { cwd: join(dir, 'rusty'), env });
    assert.match(declared.stdout, /^just ran: test$/m);
    assert.doesNotMatch(declared.stderr, /not installed/);
  });
});
