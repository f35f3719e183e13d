// Installing from a path installs the files on disk: a git work tree's uncommitted edits are what
// runs, not its last commit. `plugins update` fetches again from the same place, and asks again only
// when the plugin asks for more than was approved.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git, tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

describe('plugins install from a local path', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo();
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('a work tree with uncommitted edits is installed as it is on disk', async () => {
    const dir = await env.writePlugin('edited', {
      'plugin.toml': '[plugin]\nname = "cli-plugin-edited"\nversion = "1.0.0"\n\n[[commands]]\nname = "edited"\nbinary = "say.sh"\n',
      'say.sh': '#!/bin/sh\necho committed\n',
    });
    await git(dir, 'init', '-q', '-b', 'main');
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '-q', '-m', 'first');
    await writeFile(join(dir, 'say.sh'), '#!/bin/sh\necho edited on disk\n');
    const install = await env.run(['plugins', 'install', dir, '--yes'], repo.work);
    assert.equal(install.code, 0, install.stderr);
    const run = await env.run(['edited'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'edited on disk');
  });

  test('plugins update fetches the new version; more capabilities need approval again', async () => {
    const manifest = (version: string, capabilities: string) =>
      `[plugin]\nname = "cli-plugin-evolving"\nversion = "${version}"\n\n[capabilities]\n${capabilities}\n[[commands]]\nname = "evolving"\nbinary = "say.sh"\n`;
    const dir = await env.writePlugin('evolving', { 'plugin.toml': manifest('1.0.0', ''), 'say.sh': '#!/bin/sh\necho one\n' });
    assert.equal((await env.run(['plugins', 'install', dir, '--yes'], repo.work)).code, 0);

    await writeFile(join(dir, 'plugin.toml'), manifest('1.1.0', ''));
    await writeFile(join(dir, 'say.sh'), '#!/bin/sh\necho two\n');
    const quiet = await env.run(['plugins', 'update', 'evolving', '--json'], repo.work);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.deepEqual(assertSchema('plugins-update', quiet.json).updated, [{ name: 'cli-plugin-evolving', from: '1.0.0', to: '1.1.0', newlyRequested: [] }]);
    assert.equal((await env.run(['evolving'], repo.work)).stdout, 'two');

    await writeFile(join(dir, 'plugin.toml'), manifest('2.0.0', 'exec = true\n'));
    await writeFile(join(dir, 'say.sh'), '#!/bin/sh\necho three\n');
    const refused = await env.run(['plugins', 'update', 'evolving'], repo.work);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /asks for more than was approved: capability exec/);
    assert.match(refused.stderr, /--yes/);
    assert.equal((await env.run(['evolving'], repo.work)).stdout, 'two', 'the old version stays');

    const approved = await env.run(['plugins', 'update', 'evolving', '--yes', '--json'], repo.work);
    assert.equal(approved.code, 0, approved.stderr);
    assert.deepEqual(approved.json.updated[0].newlyRequested, ['capability exec']);
    assert.equal((await env.run(['evolving'], repo.work)).stdout, 'three');
    const list = await env.run(['plugins', 'list', '--json'], repo.work);
    assert.deepEqual(list.json.plugins.find((p: { name: string }) => p.name === 'cli-plugin-evolving').capabilities, ['exec']);
  });

  test('a new version naming another variable or socket in [sandbox] needs approval again', async () => {
    const manifest = (version: string, sandbox: string) =>
      `[plugin]\nname = "cli-plugin-sandboxed"\nversion = "${version}"\n\n[sandbox]\n${sandbox}\n[[commands]]\nname = "sandboxed"\nbinary = "say.sh"\n`;
    const say = '#!/bin/sh\necho "token: ${SOME_TOKEN:-none}"\n';
    const dir = await env.writePlugin('sandboxed', { 'plugin.toml': manifest('1.0.0', 'env = ["OTHER"]\n'), 'say.sh': say });
    assert.equal((await env.run(['plugins', 'install', dir, '--yes'], repo.work)).code, 0);
    assert.equal((await env.run(['sandboxed'], repo.work, { SOME_TOKEN: 't0ken' })).stdout, 'token: none');

    await writeFile(join(dir, 'plugin.toml'), manifest('2.0.0', 'env = ["OTHER", "SOME_TOKEN"]\nsockets = ["/run/x.sock"]\n'));
    const refused = await env.run(['plugins', 'update', 'sandboxed'], repo.work);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /asks for more than was approved: environment variable SOME_TOKEN, unix socket \/run\/x\.sock/);
    assert.equal((await env.run(['sandboxed'], repo.work, { SOME_TOKEN: 't0ken' })).stdout, 'token: none', 'the old grant stays');

    const approved = await env.run(['plugins', 'update', 'sandboxed', '--yes'], repo.work);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal((await env.run(['sandboxed'], repo.work, { SOME_TOKEN: 't0ken' })).stdout, 'token: t0ken');
  });
});
