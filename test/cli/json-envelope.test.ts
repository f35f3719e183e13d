// The contract every command keeps: --json prints exactly one document with schema_version; usage
// errors exit 2 with the error envelope; --non-interactive is accepted everywhere and never blocks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { roost, tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

describe('--json envelope and usage errors', () => {
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  before(async () => {
    repo = await tempGitRepo({ 'package.json': '{"scripts":{"test":"node -e 0"}}', 'lanes.toml': '[lanes.ci]\nsteps = ["test"]\n' }, { origin: true });
  });
  after(() => repo.cleanup());

  const USAGE: string[][] = [
    ['run', 'test', '--no-such-flag'],
    ['run', 'no-such-task'],
    ['lanes', 'run'],
    ['lanes', 'run', 'no-such-lane'],
    ['lanes', 'create'],
    ['lanes', 'import'],
    ['lanes', 'import', 'not-a-pair'],
    ['lanes', 'list', '--bogus'],
    ['lanes', 'publish', '--force'],
    ['work', 'start'],
    ['work', 'start', 'x', '--issue', '0'],
    ['work', 'push', '--force'],
    ['introspect', '--bogus'],
  ];
  for (const args of USAGE) {
    it(`roost ${args.join(' ')} → exit 2 with the error envelope`, async () => {
      const result = await roost([...args, '--json'], { cwd: repo.work });
      assert.equal(result.code, 2, result.stdout + result.stderr);
      assert.equal(result.stdout.trim().split('\n').length, 1);
      assert.equal(assertSchema('error', result.json).error.code, 'USAGE');
      const plain = await roost(args, { cwd: repo.work });
      assert.equal(plain.code, 2, plain.stderr);
      assert.equal(plain.stdout, '');
      assert.match(plain.stderr, /^roost: /);
    });
  }

  const OK: Array<[string, string[]]> = [
    ['run', ['run']],
    ['run', ['run', 'test']],
    ['lanes-list', ['lanes', 'list']],
    ['lanes-run', ['lanes', 'run', 'ci']],
    ['lanes-run', ['lanes', 'run', 'ci', '--dry-run']],
    ['introspect', ['introspect']],
  ];
  for (const [schema, args] of OK) {
    it(`roost ${args.join(' ')} --json --non-interactive prints one ${schema} document`, async () => {
      const result = await roost([...args, '--json', '--non-interactive'], { cwd: repo.work });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim().split('\n').length, 1);
      assert.equal(assertSchema(schema, result.json).schema_version, 1);
    });
  }
});
