// An exec a plugin started ends with the plugin: a plugin that exits while its command still runs
// leaves neither the command behind nor roost waiting for it.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempGitRepo } from '../helpers/cli.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const LEAVER = `#!/usr/bin/env python3
import json, os, sys, time
init = json.loads(sys.stdin.readline())
pidfile = init["args"][0]
print(json.dumps({"type": "exec", "id": "1", "command": "echo $$ > '%s.tmp' && mv '%s.tmp' '%s' && exec sleep 300" % (pidfile, pidfile, pidfile), "timeout": 300}), flush=True)
while not os.path.exists(pidfile):  # the command has started
    time.sleep(0.02)
sys.exit(0)  # without waiting for the answer
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('exec lifetime', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo();
    await env.installFiles('leaver', {
      'plugin.toml': '[plugin]\nname = "cli-plugin-leaver"\nversion = "1.0.0"\nprotocol = "cli-v1"\n\n[capabilities]\nexec = true\n\n[[commands]]\nname = "leaver"\nbinary = "leaver.py"\n',
      'leaver.py': LEAVER,
    });
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('a command still running when its plugin exits is stopped, and roost exits', async () => {
    const pidfile = join(repo.work, 'exec.pid'); // in the project: the sandboxed plugin sees nothing outside it
    const run = await env.run(['leaver', pidfile], repo.work);
    assert.equal(run.code, 0, run.stderr);
    const pid = Number((await readFile(pidfile, 'utf8')).trim());
    assert.ok(pid > 0);
    assert.equal(alive(pid), false, 'the exec command was stopped with its plugin');
  });
});
