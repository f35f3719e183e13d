// lanes.toml validation: malformed, invalid and oversized files get an error naming the file and the
// field, exit 1, the error envelope under --json — and nothing runs.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { roost, tempDir, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

const CASES: Array<[what: string, toml: string, message: RegExp]> = [
  ['a TOML syntax error', '[lanes.x]\nsteps = [{ run = "touch ran" ]\n', /^lanes\.toml: Invalid TOML.*\(line 2, column \d+\)$/],
  ['no [lanes] table', 'steps = ["test"]\n', /lanes is required; steps is not allowed/],
  ['a misspelt table', '[lane.x]\nsteps = ["test"]\n', /lane is not allowed/],
  ['a lane without steps', '[lanes.x]\ndescription = "d"\n', /lanes\.x\.steps is required/],
  ['an empty steps list', '[lanes.x]\nsteps = []\n', /lanes\.x\.steps must NOT have fewer than 1 items/],
  ['a step object without run or parallel', '[lanes.x]\nsteps = [{ cmd = "touch ran" }]\n', /lanes\.x\.steps\.0\.run is required; lanes\.x\.steps\.0\.cmd is not allowed/],
  ['a wrong type', '[lanes.x]\nfail_fast = "yes"\nsteps = ["test"]\n', /lanes\.x\.fail_fast must be boolean/],
  ['a negative timeout', '[lanes.x]\nsteps = [{ run = "touch ran", timeout = -1 }]\n', /lanes\.x\.steps\.0\.timeout must be > 0/],
  ['fractional retries', '[lanes.x]\nsteps = [{ run = "touch ran", retries = 1.5 }]\n', /lanes\.x\.steps\.0\.retries must be integer/],
  ['a nested parallel', '[lanes.x]\nsteps = [{ parallel = [{ parallel = ["test"] }] }]\n', /lanes\.x\.steps\.0\.parallel\.0\.run is required/],
  ['a step nobody provides', '[lanes.x]\nsteps = [{ run = "touch ran" }, "deploy"]\n', /lanes\.toml: lanes\.x\.steps\.1: "deploy" is not a lane, a built-in task \(test\) or a plugin command/],
];

describe('lanes.toml validation', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ dir, cleanup } = await tempDir());
    await writeTree(dir, { 'package.json': '{"scripts":{"test":"touch ran"}}' });
  });
  after(() => cleanup());

  for (const [what, toml, message] of CASES) {
    it(`refuses ${what}`, async () => {
      await writeFile(join(dir, 'lanes.toml'), toml);
      for (const args of [['lanes', 'run', 'x', '--json'], ['lanes', 'list', '--json']]) {
        if (args[1] === 'list' && what === 'a step nobody provides') continue; // resolution happens when a lane runs
        const result = await roost(args, { cwd: dir });
        assert.equal(result.code, 1, result.stdout);
        assert.equal(assertSchema('error', result.json).error.code, 'VALIDATION_ERROR');
        assert.match(result.json.error.message, message);
      }
      assert.equal(existsSync(join(dir, 'ran')), false, 'nothing ran');
    });
  }

  it('refuses an oversized lanes.toml', async () => {
    await writeFile(join(dir, 'lanes.toml'), `# ${'x'.repeat(1024 * 1024)}\n[lanes.x]\nsteps = ["test"]\n`);
    const result = await roost(['lanes', 'list', '--json'], { cwd: dir });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(assertSchema('error', result.json).error.code, 'PAYLOAD_TOO_LARGE');
    assert.match(result.json.error.message, /lanes\.toml: larger than 1 MiB/);
  });

  it('prints the error for people on stderr', async () => {
    await writeFile(join(dir, 'lanes.toml'), '[lanes.x]\nsteps = [{ cmd = "x" }]\n');
    const result = await roost(['lanes', 'run', 'x'], { cwd: dir });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^roost: lanes\.toml: lanes\.x\.steps\.0\.run is required/);
  });

  it('works without any lanes.toml: an empty list, and a clear error for a lane', async () => {
    const { dir: bare, cleanup: done } = await tempDir();
    try {
      const list = await roost(['lanes', 'list', '--json'], { cwd: bare });
      assert.deepEqual(assertSchema('lanes-list', list.json).lanes, []);
      const run = await roost(['lanes', 'run', 'ci', '--json'], { cwd: bare });
      assert.equal(run.code, 2, run.stderr);
      assert.match(assertSchema('error', run.json).error.message, /unknown lane "ci"; no lanes\.toml in/);
    } finally {
      await done();
    }
  });
});
