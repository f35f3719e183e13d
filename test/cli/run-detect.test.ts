// `roost run` stack detection: every fixture project under test/fixtures/stacks gets the expected tool
// and commands (checked with --json listings and --dry-run, nothing executed).
import assert from 'node:assert/strict';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot, roost, tempDir, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

const EXPECTED: Record<string, { stack: string; tool: string; test: string; build: string; lint: string; fmt: string }> = {
  rust: { stack: 'rust', tool: 'cargo', test: 'cargo test', build: 'cargo build', lint: 'cargo clippy --all-targets -- -D warnings', fmt: 'cargo fmt --check' },
  'node-npm': { stack: 'node', tool: 'npm', test: 'npm run test', build: 'npm run build', lint: 'npm run lint', fmt: 'npm run format' },
  'node-pnpm': { stack: 'node', tool: 'pnpm', test: 'pnpm run test', build: 'pnpm run build', lint: 'pnpm run lint', fmt: 'pnpm run fmt' },
  'node-yarn': { stack: 'node', tool: 'yarn', test: 'yarn run test', build: 'yarn run build', lint: 'yarn run lint', fmt: 'yarn run fmt' },
  'node-bun': { stack: 'node', tool: 'bun', test: 'bun run test', build: 'bun run build', lint: 'bun run lint', fmt: 'bun run fmt' },
  go: { stack: 'go', tool: 'go', test: 'go test ./...', build: 'go build ./...', lint: 'go vet ./...', fmt: 'go fmt ./...' },
  'python-pip': { stack: 'python', tool: 'python3', test: 'python3 -m pytest', build: 'python3 -m build', lint: 'ruff check .', fmt: 'ruff format .' },
  'python-uv': { stack: 'python', tool: 'uv', test: 'uv run pytest', build: 'uv build', lint: 'uv run ruff check .', fmt: 'uv run ruff format .' },
  'python-poetry': { stack: 'python', tool: 'poetry', test: 'poetry run pytest', build: 'poetry build', lint: 'poetry run ruff check .', fmt: 'poetry run ruff format .' },
  ruby: { stack: 'ruby', tool: 'bundle', test: 'bundle exec rake test', build: 'bundle exec rake build', lint: 'bundle exec rubocop', fmt: 'bundle exec rubocop -a' },
  'ruby-rspec': { stack: 'ruby', tool: 'bundle', test: 'bundle exec rspec', build: 'bundle exec rake build', lint: 'bundle exec rubocop', fmt: 'bundle exec rubocop -a' },
  'java-maven': { stack: 'java', tool: 'mvn', test: 'mvn test', build: 'mvn package', lint: 'mvn checkstyle:check', fmt: 'mvn spotless:apply' },
  'java-gradle': { stack: 'java', tool: './gradlew', test: './gradlew test', build: './gradlew build', lint: './gradlew check', fmt: './gradlew spotlessApply' },
  'java-gradle-kts': { stack: 'java', tool: 'gradle', test: 'gradle test', build: 'gradle build', lint: 'gradle check', fmt: 'gradle spotlessApply' },
  swift: { stack: 'swift', tool: 'swift', test: 'swift test', build: 'swift build', lint: 'swift format lint --recursive .', fmt: 'swift format --in-place --recursive .' },
};

describe('roost run: stack detection', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ dir, cleanup } = await tempDir());
    await cp(join(repoRoot, 'test/fixtures/stacks'), dir, { recursive: true });
  });
  after(() => cleanup());

  for (const [fixture, expected] of Object.entries(EXPECTED)) {
    it(`detects ${fixture}: ${expected.tool}`, async () => {
      const cwd = join(dir, fixture);
      const listing = assertSchema('run', (await roost(['run', '--json'], { cwd })).json);
      assert.equal(listing.root, cwd);
      assert.equal(listing.stacks[0].id, expected.stack);
      assert.equal(listing.stacks[0].tool, expected.tool);
      const byName = Object.fromEntries(listing.tasks.map((t: { name: string; command: string }) => [t.name, t.command]));
      for (const task of ['test', 'build', 'lint', 'fmt'] as const) assert.equal(byName[task], expected[task], `${fixture} ${task}`);

      const dry = await roost(['run', 'test', '--dry-run', '--json'], { cwd });
      assert.equal(dry.code, 0, dry.stderr);
      assertSchema('run', dry.json);
      assert.equal(dry.json.dryRun, true);
      // A tool this machine lacks may have a fallback (run-fallback.test.ts): the declared command is kept.
      assert.equal(dry.json.fallback?.declared ?? dry.json.command, expected.test);
      if (!dry.json.fallback) assert.deepEqual(dry.json.argv, expected.test.split(' '));
    });
  }

  it('prints the command of a dry run as plain text, with extra arguments', async () => {
    const result = await roost(['run', 'test', '--dry-run', '--', '--filter', 'two words'], { cwd: join(dir, 'node-npm') });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), "npm run test -- --filter 'two words'");
    const cargo = await roost(['run', 'test', '--dry-run', '--', 'adds'], { cwd: join(dir, 'rust') });
    assert.equal(cargo.stdout.trim(), 'cargo test adds');
  });

  it('finds the project root from a nested directory', async () => {
    const nested = join(dir, 'rust', 'src', 'deep', 'er');
    await mkdir(nested, { recursive: true });
    const result = await roost(['run', 'build', '--dry-run', '--json'], { cwd: nested });
    assert.equal(result.json.root, join(dir, 'rust'));
    assert.equal(result.json.command, 'cargo build');
  });

  it('takes bun.lockb, corepack packageManager, and a lockfile of the enclosing workspace', async () => {
    const { dir: ws, cleanup: done } = await tempDir();
    try {
      await writeTree(ws, {
        'lockb/package.json': '{"scripts":{"test":"x"}}',
        'lockb/bun.lockb': '',
        'corepack/package.json': '{"packageManager":"pnpm@9.1.0","scripts":{"test":"x"}}',
        'mono/pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
        'mono/package.json': '{"private":true}',
        'mono/packages/app/package.json': '{"scripts":{"test":"x"}}',
      });
      await mkdir(join(ws, 'mono/.git'));
      for (const [sub, tool] of [['lockb', 'bun'], ['corepack', 'pnpm'], ['mono/packages/app', 'pnpm']]) {
        const result = await roost(['run', 'test', '--dry-run', '--json'], { cwd: join(ws, sub!) });
        assert.equal(result.json.tool, tool, sub);
        assert.equal(result.json.root, join(ws, sub!));
      }
    } finally {
      await done();
    }
  });

  it('prefers the non-Node stack when package.json sits beside it, and --stack picks another', async () => {
    const { dir: both, cleanup: done } = await tempDir();
    try {
      await cp(join(dir, 'rust'), both, { recursive: true });
      await writeFile(join(both, 'package.json'), '{"scripts":{"test":"jest","docs":"typedoc"}}');
      const listing = (await roost(['run', '--json'], { cwd: both })).json;
      assert.deepEqual(listing.stacks.map((s: { id: string }) => s.id), ['rust', 'node']);
      assert.equal((await roost(['run', 'test', '--dry-run', '--json'], { cwd: both })).json.command, 'cargo test');
      assert.equal((await roost(['run', 'docs', '--dry-run', '--json'], { cwd: both })).json.command, 'npm run docs');
      assert.equal((await roost(['run', 'test', '--stack', 'node', '--dry-run', '--json'], { cwd: both })).json.command, 'npm run test');
    } finally {
      await done();
    }
  });

  it('lists tasks for people, and says so when no stack is found', async () => {
    const listing = await roost(['run'], { cwd: join(dir, 'go') });
    assert.equal(listing.code, 0, listing.stderr);
    assert.match(listing.stdout, /go\/go/);
    assert.match(listing.stdout, /test\s+go test \.\/\.\.\./);
    const { dir: empty, cleanup: done } = await tempDir();
    try {
      const none = await roost(['run', '--json'], { cwd: empty });
      assert.deepEqual(assertSchema('run', none.json).stacks, []);
      const failed = await roost(['run', 'test', '--json'], { cwd: empty });
      assert.equal(failed.code, 1, failed.stderr);
      assert.equal(assertSchema('error', failed.json).error.code, 'NO_STACK');
      assert.match(failed.json.error.message, /Cargo\.toml, package\.json/);
    } finally {
      await done();
    }
  });

  it('refuses an unknown task with exit 2, naming the tasks there are', async () => {
    const result = await roost(['run', 'deploy', '--json'], { cwd: join(dir, 'node-npm') });
    assert.equal(result.code, 2, result.stderr);
    assertSchema('error', result.json);
    assert.equal(result.json.error.code, 'USAGE');
    assert.match(result.json.error.message, /unknown task "deploy".*test, build, lint, format, fmt/);
  });

  it('reports a broken package.json clearly', async () => {
    const { dir: broken, cleanup: done } = await tempDir();
    try {
      await writeFile(join(broken, 'package.json'), '{"scripts": {');
      const result = await roost(['run', 'test', '--json'], { cwd: broken });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(assertSchema('error', result.json).error.code, 'VALIDATION_ERROR');
      assert.match(result.json.error.message, /package\.json/);
    } finally {
      await done();
    }
  });
});
