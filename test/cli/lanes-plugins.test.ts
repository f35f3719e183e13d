// Plugin commands as lane steps: a step names a plugin command with its arguments, init.command says
// which of the binary's commands ran, the plugin's output lands in the report, and the failing step's
// own exit code is roost's.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const COUNTER = `#!/usr/bin/env python3
import json, sys
init = json.loads(sys.stdin.readline())
print(json.dumps({"type": "output", "text": "%s ran with %s\\n" % (init["command"], json.dumps(init["args"]))}), flush=True)
sys.exit(int(init["args"][0]) if init["command"] == "tally-fail" else 0)
`;

describe('plugin commands in lanes', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo();
    await env.installFiles('tally', {
      'plugin.toml': '[plugin]\nname = "cli-plugin-tally"\nversion = "1.0.0"\nprotocol = "cli-v1"\n\n'
        + '[[commands]]\nname = "tally"\nbinary = "tally.py"\n\n[[commands]]\nname = "tally-fail"\nbinary = "tally.py"\n',
      'tally.py': COUNTER,
    });
    await writeFile(join(repo.work, 'lanes.toml'), [
      '[lanes.ci]',
      `steps = ["tally one 'two words'", "tally-fail 5", "tally three"]`,
      '[lanes.inline]',
      'steps = [{ run = "exit 4" }]',
      '[lanes.nested]',
      'steps = [{ parallel = ["tally-fail 6", "tally ok"] }]',
    ].join('\n'));
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('steps run plugin commands with arguments; the failing step exit code is roost exit code', async () => {
    const run = await env.run(['lanes', 'run', 'ci', '--json'], repo.work);
    assert.equal(run.code, 5, run.stderr);
    const report = assertSchema('lanes-run', run.json);
    assert.deepEqual(report.steps.map((s: any) => [s.name, s.kind, s.status, s.exitCode]), [
      ["tally one 'two words'", 'plugin', 'passed', 0],
      ['tally-fail 5', 'plugin', 'failed', 5],
      ['tally three', 'plugin', 'skipped', undefined],
    ]);
    assert.match(report.steps[0].outputTail, /^tally ran with \["one", "two words"\]$/m);
    assert.match(report.steps[1].outputTail, /^tally-fail ran with \["5"\]$/m);
  });

  test('a dry run names the plugin and the command', async () => {
    const run = await env.run(['lanes', 'run', 'ci', '--dry-run', '--json'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(assertSchema('lanes-run', run.json).steps[1].command, 'plugin cli-plugin-tally: tally-fail 5');
  });

  test('an inline step and a parallel group pass their exit codes through too', async () => {
    assert.equal((await env.run(['lanes', 'run', 'inline'], repo.work)).code, 4);
    assert.equal((await env.run(['lanes', 'run', 'nested'], repo.work)).code, 6);
  });
});
