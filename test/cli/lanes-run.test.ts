// `roost lanes run`: sequential, parallel and nested lanes, fail_fast both ways, cycles, diamonds,
// when/timeout/retries — against real processes in a temporary Node project.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { execa } from 'execa';
import { roost, roostBin, tempDir, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

const LANES = `
[lanes.ci]
description = "lint, then both suites side by side"
steps = ["lint", { parallel = ["unit", "integration", { run = "node count.js greet && echo hello from greet", name = "greet" }] }, { run = "node count.js after" }]

[lanes.unit]
steps = ["test", { run = "node count.js unit" }]

[lanes.integration]
steps = ["test", { run = "node count.js integration" }]

[lanes.strict]
steps = [{ run = "exit 3", name = "boom" }, { run = "node count.js never" }]

[lanes.lenient]
fail_fast = false
steps = [{ run = "exit 3", name = "boom" }, { run = "node count.js still" }]

[lanes.outer]
steps = ["strict", { run = "node count.js outer-after" }]

[lanes.parallel-fail]
steps = [{ parallel = [{ run = "exit 1", name = "bad" }, { run = "sleep 0.3; node count.js sibling", name = "sibling" }] }, { run = "node count.js later" }]

[lanes.loop-a]
steps = [{ run = "node count.js loop" }, "loop-b"]

[lanes.loop-b]
steps = ["loop-a"]

[lanes.conditions]
steps = [
  { run = "node count.js file", when = "test -f flag" },
  { run = "node count.js env", when = "env:ROOST_TEST_FLAG" },
  { run = "node count.js ci", when = "ci" },
  { run = "node count.js not-ci", when = "!ci" },
]

[lanes.slow]
steps = [{ run = "sleep 100 & echo $! > bg.pid; echo $$ > sh.pid; sleep 100", timeout = 1, name = "sleeper" }]

[lanes.background]
steps = [{ run = "sleep 100 > /dev/null 2>&1 & echo $! > bg2.pid", name = "spawner" }]

[lanes.hang]
steps = [{ run = "echo $$ > hang.pid; sleep 100", name = "hang" }, { run = "node count.js after-hang" }]

[lanes.flaky]
steps = [{ run = "node flaky.js 3", retries = 2, name = "third-time" }, { run = "node flaky.js 99", retries = 1, name = "hopeless" }]
`;

const FILES = {
  'package.json': JSON.stringify({ name: 'lanes-fixture', private: true, scripts: { test: 'node count.js test', lint: 'node count.js lint' } }),
  'package-lock.json': '{"name":"lanes-fixture","lockfileVersion":3,"requires":true,"packages":{}}',
  'count.js': "require('node:fs').appendFileSync('count.txt', process.argv[2] + '\\n');\n",
  // Fails until its attempt number (kept in attempts-<n>.txt) reaches the argument.
  'flaky.js': `const fs = require('node:fs');
const file = 'attempts-' + process.argv[2] + '.txt';
const attempt = (fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : 0) + 1;
fs.writeFileSync(file, String(attempt));
console.log('attempt ' + attempt);
process.exit(attempt >= Number(process.argv[2]) ? 0 : 1);
`,
  'lanes.toml': LANES,
};

/** Gone, or a zombie waiting to be reaped (already dead). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('roost lanes run', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ dir, cleanup } = await tempDir());
    await writeTree(dir, FILES);
  });
  after(() => cleanup());
  beforeEach(() => rm(join(dir, 'count.txt'), { force: true }));
  const counted = async () => (existsSync(join(dir, 'count.txt')) ? (await readFile(join(dir, 'count.txt'), 'utf8')).trim().split('\n') : []);
  const env = { CI: '', ROOST_TEST_FLAG: '' };

  it('runs steps in order, parallel items together with prefixed output, nested lanes, and a shared task once', async () => {
    const text = await roost(['lanes', 'run', 'ci'], { cwd: dir, env });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^\[greet\] hello from greet$/m);
    assert.match(text.stdout, /✓ lane ci/);
    const runs = await counted();
    assert.equal(runs.filter((r) => r === 'test').length, 1, `test ran once: ${runs}`);
    assert.deepEqual([...runs].sort(), ['after', 'greet', 'integration', 'lint', 'test', 'unit']);
    assert.equal(runs[0], 'lint');
    assert.equal(runs.at(-1), 'after');

    const json = await roost(['lanes', 'run', 'ci', '--json'], { cwd: dir, env });
    assert.equal(json.code, 0, json.stderr);
    const doc = assertSchema('lanes-run', json.json);
    assert.equal(doc.status, 'passed');
    assert.deepEqual(doc.steps.map((s: any) => [s.name, s.kind, s.status]), [['lint', 'task', 'passed'], ['parallel: unit, integration, greet', 'parallel', 'passed'], ['node count.js after', 'run', 'passed']]);
    const [unit, integration, greet] = doc.steps[1].steps;
    assert.equal(greet.outputTail, 'hello from greet');
    const tests = [unit.steps[0], integration.steps[0]];
    assert.deepEqual(tests.map((t: any) => t.status), ['passed', 'passed']);
    assert.equal(tests.filter((t: any) => t.reused).length, 1, 'one place reuses the other’s result');
    assert.match(json.stderr, /\[greet\] hello from greet/);
    assert.equal(json.stdout.trim().split('\n').length, 1);
  });

  it('fail_fast = true (the default) skips the rest; false runs every step; both fail the lane', async () => {
    const strict = await roost(['lanes', 'run', 'strict', '--json'], { cwd: dir });
    assert.equal(strict.code, 3, 'the failing step’s exit code: ' + strict.stderr);
    const s = assertSchema('lanes-run', strict.json);
    assert.deepEqual(s.steps.map((x: any) => x.status), ['failed', 'skipped']);
    assert.equal(s.steps[0].exitCode, 3);
    assert.match(s.steps[1].reason, /fail_fast/);
    assert.deepEqual(await counted(), []);

    const lenient = await roost(['lanes', 'run', 'lenient', '--json'], { cwd: dir });
    assert.equal(lenient.code, 3, lenient.stderr);
    assert.deepEqual(assertSchema('lanes-run', lenient.json).steps.map((x: any) => x.status), ['failed', 'passed']);
    assert.deepEqual(await counted(), ['still']);
  });

  it('a failing nested lane fails its caller, which then stops', async () => {
    const result = await roost(['lanes', 'run', 'outer', '--json'], { cwd: dir });
    assert.equal(result.code, 3, 'the exit code of the failing step inside the nested lane: ' + result.stderr);
    const doc = assertSchema('lanes-run', result.json);
    assert.deepEqual(doc.steps.map((x: any) => [x.kind, x.status]), [['lane', 'failed'], ['run', 'skipped']]);
    assert.deepEqual(await counted(), []);
  });

  it('lets running parallel items finish when one fails, then stops the lane', async () => {
    const result = await roost(['lanes', 'run', 'parallel-fail', '--json'], { cwd: dir });
    assert.equal(result.code, 1, result.stderr);
    const doc = assertSchema('lanes-run', result.json);
    assert.deepEqual(doc.steps[0].steps.map((x: any) => [x.name, x.status]), [['bad', 'failed'], ['sibling', 'passed']]);
    assert.equal(doc.steps[1].status, 'skipped');
    assert.deepEqual(await counted(), ['sibling']);
  });

  it('refuses a cycle before anything runs, naming it', async () => {
    const result = await roost(['lanes', 'run', 'loop-a', '--json'], { cwd: dir });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(assertSchema('error', result.json).error.message, 'lane cycle: loop-a → loop-b → loop-a');
    assert.deepEqual(await counted(), []);
  });

  it('evaluates when conditions: shell command, env:NAME, ci and !ci', async () => {
    const none = assertSchema('lanes-run', (await roost(['lanes', 'run', 'conditions', '--json'], { cwd: dir, env })).json);
    assert.deepEqual(none.steps.map((x: any) => x.status), ['skipped', 'skipped', 'skipped', 'passed']);
    assert.match(none.steps[0].reason, /when "test -f flag" is false/);
    assert.deepEqual(await counted(), ['not-ci']);

    await writeFile(join(dir, 'flag'), '');
    await rm(join(dir, 'count.txt'), { force: true });
    const all = assertSchema('lanes-run', (await roost(['lanes', 'run', 'conditions', '--json'], { cwd: dir, env: { CI: 'true', ROOST_TEST_FLAG: '1' } })).json);
    assert.deepEqual(all.steps.map((x: any) => x.status), ['passed', 'passed', 'passed', 'skipped']);
    assert.deepEqual(await counted(), ['file', 'env', 'ci']);
    await rm(join(dir, 'flag'));
  });

  it('kills the whole process group of a step that times out', async () => {
    const result = await roost(['lanes', 'run', 'slow', '--json'], { cwd: dir, timeout: 30_000 });
    assert.equal(result.code, 124, 'a timed-out step exits 124, as timeout(1): ' + result.stderr);
    const step = assertSchema('lanes-run', result.json).steps[0];
    assert.equal(step.status, 'timeout');
    assert.ok(step.durationMs < 10_000, `ended soon after the 1 s timeout (${step.durationMs} ms)`);
    const pids = ['bg.pid', 'sh.pid'].map((f) => Number(readFileSync(join(dir, f), 'utf8')));
    assert.deepEqual(pids.filter(alive), [], 'the shell and its background sleep are gone');
  });

  it('ends background processes a step leaves behind when the lane ends', async () => {
    const result = await roost(['lanes', 'run', 'background', '--json'], { cwd: dir, timeout: 30_000 });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(alive(Number(readFileSync(join(dir, 'bg2.pid'), 'utf8'))), false);
  });

  it('on Ctrl-C (SIGINT) kills running steps, skips the rest and exits 130 with its report', async () => {
    const child = execa(process.execPath, [roostBin, 'lanes', 'run', 'hang', '--json'], { cwd: dir, reject: false, timeout: 30_000 });
    const pidFile = join(dir, 'hang.pid');
    while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') await new Promise((r) => setTimeout(r, 50));
    const shell = Number(readFileSync(pidFile, 'utf8'));
    child.kill('SIGINT');
    const result = await child;
    assert.equal(result.exitCode, 130);
    const doc = assertSchema('lanes-run', JSON.parse(String(result.stdout)));
    assert.equal(doc.ok, false);
    assert.deepEqual(doc.steps.map((x: any) => [x.status, x.reason]), [['failed', undefined], ['skipped', 'interrupted']]);
    assert.equal(alive(shell), false);
    assert.deepEqual(await counted(), []);
  });

  it('retries a failing step up to `retries` more times', async () => {
    const result = await roost(['lanes', 'run', 'flaky', '--json'], { cwd: dir });
    assert.equal(result.code, 1, result.stderr);
    const [third, hopeless] = assertSchema('lanes-run', result.json).steps;
    assert.deepEqual([third.status, third.attempts], ['passed', 3]);
    assert.match(third.outputTail, /attempt 3/);
    assert.deepEqual([hopeless.status, hopeless.attempts], ['failed', 2]);
  });

  it('--dry-run shows the resolved plan and runs nothing', async () => {
    const result = await roost(['lanes', 'run', 'ci', '--dry-run', '--json'], { cwd: dir });
    assert.equal(result.code, 0, result.stderr);
    const doc = assertSchema('lanes-run', result.json);
    assert.equal(doc.status, 'planned');
    assert.equal(doc.steps[0].command, 'npm run lint');
    assert.equal(doc.steps[1].steps[0].steps[0].command, 'npm run test');
    assert.deepEqual(await counted(), []);
    const text = await roost(['lanes', 'run', 'slow', '--dry-run'], { cwd: dir });
    assert.match(text.stdout, /sleeper .*timeout 1s/);
  });

  it('lists the lanes', async () => {
    const result = await roost(['lanes', 'list', '--json'], { cwd: dir });
    const doc = assertSchema('lanes-list', result.json);
    const ci = doc.lanes.find((l: any) => l.name === 'ci');
    assert.deepEqual(ci, { name: 'ci', description: 'lint, then both suites side by side', source: 'local', failFast: true, steps: 3 });
    assert.equal(doc.lanes.find((l: any) => l.name === 'lenient').failFast, false);
  });

  it('refuses an unknown lane with exit 2, naming the lanes there are', async () => {
    const result = await roost(['lanes', 'run', 'nope', '--json'], { cwd: dir });
    assert.equal(result.code, 2, result.stderr);
    assert.equal(assertSchema('error', result.json).error.code, 'USAGE');
    assert.match(result.json.error.message, /unknown lane "nope"; lanes: ci, unit/);
  });
});
