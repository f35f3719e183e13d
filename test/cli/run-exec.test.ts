// `roost run` actually running tasks: exit codes pass through, `-- args` reach the task, output streams
// (to stderr under --json so stdout stays one document). Toolchains that exist here run for real.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { repoRoot, roost, roostBin, tempDir } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

const onPath = async (tool: string) => (await execa('sh', ['-c', `command -v ${tool}`], { reject: false })).exitCode === 0;
const hasCargo = await onPath('cargo');
const hasGo = await onPath('go');
const hasPytest = (await execa('python3', ['-m', 'pytest', '--version'], { reject: false })).exitCode === 0;
// mvn runs offline here, so only with the plugin versions the fixture pins already in the local repository.
const hasMaven = (await onPath('mvn')) && existsSync(join(homedir(), '.m2/repository/org/apache/maven/plugins/maven-surefire-plugin/3.2.5'));

describe('roost run: running tasks', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ dir, cleanup } = await tempDir());
    await cp(join(repoRoot, 'test/fixtures/stacks'), dir, { recursive: true });
  });
  after(() => cleanup());
  const node = () => join(dir, 'node-npm');

  it('runs the package script through npm and passes its exit code and arguments through', async () => {
    const ok = await roost(['run', 'test', '--', 'first', '--flag=x'], { cwd: node() });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /fixture test ran with \["first","--flag=x"\]/);
    assert.match(ok.stderr, /fixture stderr line/);
    const failing = await roost(['run', 'test'], { cwd: node(), env: { FIXTURE_EXIT: '7' } });
    assert.equal(failing.code, 7, failing.stderr);
    const runs = (await readFile(join(node(), 'test-runs.txt'), 'utf8')).trim().split('\n');
    assert.deepEqual(runs.map((l) => JSON.parse(l)), [['first', '--flag=x'], []]);
  });

  it('--json prints one document with the exit code, duration and output tail; the output goes to stderr', async () => {
    const result = await roost(['run', 'test', '--json', '--', '--json'], { cwd: node(), env: { FIXTURE_EXIT: '3' } });
    assert.equal(result.code, 3, result.stderr);
    const doc = assertSchema('run', result.json);
    assert.equal(doc.ok, false);
    assert.equal(doc.exitCode, 3);
    assert.equal(doc.stack, 'node');
    assert.equal(doc.command, 'npm run test -- --json');
    assert.ok(doc.durationMs > 0);
    assert.match(doc.outputTail, /fixture test ran with \["--json"\]/);
    assert.match(doc.outputTail, /fixture stderr line/);
    assert.match(result.stderr, /fixture test ran/);
    assert.equal(result.stdout.trim().split('\n').length, 1, 'stdout holds the JSON document only');
  });

  it('streams output while the task is still running', async () => {
    const { dir: slow, cleanup: done } = await tempDir();
    try {
      await cp(node(), slow, { recursive: true });
      const pkg = JSON.parse(await readFile(join(slow, 'package.json'), 'utf8'));
      pkg.scripts.test = 'node slow.js';
      await writeFile(join(slow, 'package.json'), JSON.stringify(pkg));
      await writeFile(join(slow, 'slow.js'), "console.log('EARLY-MARK'); setTimeout(() => console.log('LATE-MARK'), 1500);\n");
      for (const args of [['run', 'test'], ['run', 'test', '--json']]) {
        const child = execa(process.execPath, [roostBin, ...args], { cwd: slow, reject: false });
        const stream = args.includes('--json') ? child.stderr! : child.stdout!;
        let seen = '';
        let exited = false;
        void child.then(() => { exited = true; });
        await new Promise<void>((resolve) => stream.on('data', (c: Buffer) => {
          seen += c.toString();
          if (seen.includes('EARLY-MARK')) resolve();
        }));
        assert.equal(exited, false, 'early output arrived before the task ended');
        assert.doesNotMatch(seen, /LATE-MARK/);
        const result = await child;
        assert.equal(result.exitCode, 0);
      }
    } finally {
      await done();
    }
  });

  it('runs ./gradlew from the project root when the wrapper is there', async () => {
    const result = await roost(['run', 'build', '--json'], { cwd: join(dir, 'java-gradle') });
    assert.equal(result.code, 0, result.stderr);
    assert.match(assertSchema('run', result.json).outputTail, /^gradlew build$/m);
  });

  it('says which tool is missing when it is not installed', async () => {
    const result = await roost(['run', 'test', '--json'], { cwd: join(dir, 'swift'), env: { PATH: join(dir, 'no-such-bin') } });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(assertSchema('error', result.json).error.code, 'COMMAND_NOT_FOUND');
    assert.match(result.json.error.message, /^swift: command not found/);
  });

  it('runs cargo test in the Rust fixture', { skip: !hasCargo && 'cargo is not installed' }, async () => {
    const result = await roost(['run', 'test', '--json', '--', '--offline'], {
      cwd: join(dir, 'rust'), env: { CARGO_TARGET_DIR: join(dir, 'cargo-target') }, timeout: 300_000,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.command, 'cargo test --offline');
    assert.match(result.json.outputTail, /test tests::adds \.\.\. ok/);
  });

  it('runs pytest in the Python fixture', { skip: !hasPytest && 'python3 -m pytest is not available' }, async () => {
    const result = await roost(['run', 'test', '--json', '--', '-p', 'no:cacheprovider'], {
      cwd: join(dir, 'python-pip'), env: { PYTHONDONTWRITEBYTECODE: '1' },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.json.outputTail, /1 passed/);
  });

  it('runs mvn test offline in the Maven fixture', { skip: !hasMaven && 'mvn with a warm local repository is not available' }, async () => {
    const result = await roost(['run', 'test', '--json', '--', '-o', '-q'], { cwd: join(dir, 'java-maven'), timeout: 300_000 });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json.command, 'mvn test -o -q');
  });

  it('runs go test in the Go fixture', { skip: !hasGo && 'go is not installed' }, async () => {
    const result = await roost(['run', 'test', '--json'], { cwd: join(dir, 'go'), env: { GOFLAGS: '-mod=mod', GOPROXY: 'off' } });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.json.outputTail, /ok\s+example\.com\/fixture/);
  });
});
