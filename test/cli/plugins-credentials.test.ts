// The origin URL of a repository may carry a token (https://user:token@host/…). No plugin ever sees
// it: a plugin granted nothing gets no remote at all in init, one granted metadata gets the remote's
// name and its URL without credentials, in init and in the metadata reply.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { git, tempGitRepo } from '../helpers/cli.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const TOKEN = 'ghp_s3cr3tT0k3n';

const PLUGIN = `#!/usr/bin/env python3
import json, sys
init = json.loads(sys.stdin.readline())
def say(value):
    print(json.dumps({"type": "output", "text": json.dumps(value) + "\\n"}), flush=True)
say(init["project"]["git"])
print(json.dumps({"type": "metadata", "id": "1", "keys": ["git"]}), flush=True)
say(json.loads(sys.stdin.readline())["value"])
`;

describe('credentials in the remote URL never reach a plugin', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo();
    await git(repo.work, 'remote', 'add', 'origin', `https://alice:${TOKEN}@git.example.test/acme/widgets.git?access_token=${TOKEN}`);
    for (const [name, metadata] of [['peek-none', false], ['peek-meta', true]] as const) {
      await env.installFiles(name, {
        'plugin.toml': `[plugin]\nname = "cli-plugin-${name}"\nversion = "1.0.0"\nprotocol = "cli-v1"\n\n[capabilities]\nmetadata = ${metadata}\n\n[[commands]]\nname = "${name}"\nbinary = "peek.py"\n`,
        'peek.py': PLUGIN,
      });
    }
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('a plugin granted nothing sees neither the remote nor its URL', async () => {
    const run = await env.run(['peek-none'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.includes(TOKEN) && !run.stderr.includes(TOKEN), run.stdout);
    const [initGit, metadata] = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(initGit, { branch: 'main', dirty: false, remote: null, remote_url: null });
    assert.deepEqual(metadata, {});
  });

  test('a plugin granted metadata sees the remote name and the URL stripped of credentials', async () => {
    const run = await env.run(['peek-meta'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.includes(TOKEN) && !run.stdout.includes('alice'), run.stdout);
    const [initGit, metadata] = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const expected = { branch: 'main', dirty: false, remote: 'origin', remote_url: 'https://git.example.test/acme/widgets.git' };
    assert.deepEqual(initGit, expected);
    assert.deepEqual(metadata, { git: expected });
  });
});
