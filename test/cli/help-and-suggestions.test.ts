// Finding one's way: `roost --help` lists plugin commands, a command group alone lists its
// sub-commands, and a mistyped command, sub-command, task or lane gets a "did you mean".
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

describe('help and suggestions', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo({ 'package.json': JSON.stringify({ name: 'demo', scripts: { test: 'node -e 0' } }) });
    await writeFile(join(repo.work, 'lanes.toml'), '[lanes.check]\nsteps = ["test"]\n');
    await env.installFiles('greet', {
      'plugin.toml': '[plugin]\nname = "cli-plugin-greet"\nversion = "1.0.0"\n\n[[commands]]\nname = "greet"\ndescription = "Say hello"\nbinary = "greet.sh"\n',
      'greet.sh': '#!/bin/sh\necho hello\n',
    });
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('roost --help lists plugin commands beside the built-ins', async () => {
    const run = await env.run(['--help'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Plugin commands:\n\s+greet\s+Say hello \(cli-plugin-greet\)$/m);
    assert.match(run.stdout, /lanes run <lane>/);
  });

  test('a command group alone lists its sub-commands', async () => {
    const text = await env.run(['lanes'], repo.work);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^roost lanes has these commands:$/m);
    assert.match(text.stdout, /^\s+roost lanes run <lane>\s+\S/m);
    const json = await env.run(['lanes', '--json'], repo.work);
    const doc = assertSchema('command-group', json.json);
    assert.deepEqual(doc.subcommands.map((s: { name: string }) => s.name).sort(), ['lanes create', 'lanes import', 'lanes list', 'lanes publish', 'lanes run']);
  });

  const typos: Array<[string[], RegExp]> = [
    [['lnaes', 'list'], /unknown command "lnaes list"; did you mean "lanes"\?/],
    [['lanes', 'rnu'], /unknown command "lanes rnu"; did you mean "run"\?; roost lanes has: /],
    [['greeet'], /unknown command "greeet"; did you mean "greet"\?/],
    [['run', 'tset'], /unknown task "tset"; did you mean "test"\?; available: test/],
    [['lanes', 'run', 'chekc'], /unknown lane "chekc"; did you mean "check"\?/],
  ];
  for (const [args, message] of typos) {
    test(`roost ${args.join(' ')}: a usage error that suggests the closest name`, async () => {
      const run = await env.run(args, repo.work);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    });
  }

  test('nothing close: no suggestion', async () => {
    const run = await env.run(['zzzzzz'], repo.work);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown command "zzzzzz"; see roost --help/);
  });
});
