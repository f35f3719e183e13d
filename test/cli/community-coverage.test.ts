// The default coverage plugin over the reports test runners leave: lcov found at its usual place,
// Istanbul json-summary, Cobertura XML and a Go cover profile named with --report; --min gates.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir, tempGitRepo, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const LCOV = 'TN:\nSF:src/a.ts\nDA:1,1\nLF:10\nLH:8\nend_of_record\nSF:src/b.ts\nLF:10\nLH:5\nend_of_record\n';
const REPORTS = {
  'reports/summary.json': JSON.stringify({
    total: { lines: { total: 200, covered: 150, skipped: 0, pct: 75 } },
    '/p/src/a.ts': { lines: { total: 100, covered: 90 } },
    '/p/src/b.ts': { lines: { total: 100, covered: 60 } },
  }),
  'reports/coverage.xml': '<?xml version="1.0" ?>\n<coverage version="7.4" timestamp="1" lines-valid="40" lines-covered="30" line-rate="0.75" branches-covered="0" branches-valid="0" branch-rate="0" complexity="0">\n<packages><package name="app"><classes><class name="a.py" filename="app/a.py" line-rate="0.75"></class></classes></package></packages>\n</coverage>\n',
  // The second test binary hits the block the first missed; it counts once, as covered.
  'reports/cover.out': 'mode: set\nexample.com/p/a.go:3.10,5.2 2 1\nexample.com/p/a.go:7.10,9.2 3 0\nexample.com/p/b.go:1.1,2.2 5 0\nexample.com/p/a.go:7.10,9.2 3 1\n',
  'reports/notes.txt': 'not a report\n',
  'reports/broken.json': '{"total": {}}',
};

describe('default plugin: coverage', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo({ 'package.json': '{"name":"demo"}\n', 'coverage/lcov.info': LCOV, ...REPORTS });
    const install = await env.run(['plugins', 'install', '--community'], repo.work);
    assert.equal(install.code, 0, install.stderr);
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('coverage --json finds coverage/lcov.info and sums its files', async () => {
    const run = await env.run(['coverage', '--json'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('coverage', run.json);
    assert.deepEqual([doc.report, doc.lines, doc.files, doc.min], [{ file: join(repo.work, 'coverage/lcov.info'), format: 'lcov' }, { covered: 13, total: 20, percent: 65 }, 2, null]);
  });

  test('--min gates: met exits 0, missed exits 1', async () => {
    const met = await env.run(['coverage', '--min', '65'], repo.work);
    assert.equal(met.code, 0, met.stderr);
    assert.match(met.stdout, /^Line coverage 65%: 13 of 20 lines in 2 files \(minimum 65%: met\)$/m);
    const missed = await env.run(['coverage', '--min', '80.5', '--json'], repo.work);
    assert.equal(missed.code, 1);
    assert.deepEqual([assertSchema('coverage', missed.json).ok, missed.json.min], [false, 80.5]);
  });

  test('--report reads Istanbul json-summary, Cobertura XML and Go cover profiles', async () => {
    const expected: Array<[string, string, number, number, number]> = [
      ['reports/summary.json', 'istanbul-summary', 150, 200, 2],
      ['reports/coverage.xml', 'cobertura', 30, 40, 1],
      ['reports/cover.out', 'go', 5, 10, 2],
    ];
    for (const [file, format, covered, total, files] of expected) {
      const run = await env.run(['coverage', '--report', file, '--json'], repo.work);
      assert.equal(run.code, 0, `${file}: ${run.stderr}`);
      const doc = assertSchema('coverage', run.json);
      assert.deepEqual([doc.report.format, doc.lines.covered, doc.lines.total, doc.files], [format, covered, total, files], file);
    }
  });

  test('bad input: a bad --min or a missing --report exit 2; no report, an unknown or broken one exit 1', async () => {
    for (const args of [['--min', 'most'], ['--min', '101'], ['--report', 'nope.info']]) {
      const run = await env.run(['coverage', ...args, '--json'], repo.work);
      assert.equal(run.code, 2, args.join(' '));
      assert.equal(assertSchema('error', run.json).error.code, 'USAGE');
    }
    const unknown = await env.run(['coverage', '--report', 'reports/notes.txt', '--json'], repo.work);
    assert.equal(unknown.code, 1);
    assert.match(assertSchema('error', unknown.json).error.message, /not a coverage report roost knows/);
    const broken = await env.run(['coverage', '--report', 'reports/broken.json', '--json'], repo.work);
    assert.equal(broken.code, 1);
    assert.match(assertSchema('error', broken.json).error.message, /broken\.json is not a valid istanbul-summary report/);
    const { dir, cleanup } = await tempDir('roost-coverage-none-');
    try {
      await writeTree(dir, { 'go.mod': 'module demo\n' });
      const none = await env.run(['coverage', '--json'], dir);
      assert.equal(none.code, 1);
      assert.match(assertSchema('error', none.json).error.message, /no coverage report in .*run the tests with coverage first/);
    } finally {
      await cleanup();
    }
  });
});
