// The home folder is never shown whole to a sandboxed plugin: a project inside it is, with nothing
// around it; a project that is the home folder itself (a dotfiles repository) is not shown at all,
// even with filesystem = "project", and roost says so.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findSandboxTools } from '../../kernel/host/sandbox-tools.js';
import { git, tempDir } from '../helpers/cli.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const PROBE = `#!/bin/sh
for f in .ssh/id_ed25519 .netrc notes.txt code/app/main.c; do
  if [ -s "$HOME/$f" ]; then echo "$f: readable"; else echo "$f: hidden"; fi
done
`;

const tools = findSandboxTools(process.env.ROOST_BWRAP || 'bwrap');

describe('the home folder stays hidden', { skip: 'missing' in tools ? `no usable bubblewrap: ${tools.missing}` : false }, () => {
  let env: PluginHome;
  let home: { dir: string; cleanup: () => Promise<void> };

  before(async () => {
    env = await pluginHome();
    home = await tempDir('roost-home-project-');
    await mkdir(join(home.dir, '.ssh'));
    await writeFile(join(home.dir, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
    await writeFile(join(home.dir, '.netrc'), 'machine example.test password hunter2');
    await writeFile(join(home.dir, 'notes.txt'), 'ordinary file');
    await git(home.dir, 'init', '-q', '-b', 'main');
    await mkdir(join(home.dir, 'code', 'app'), { recursive: true });
    await writeFile(join(home.dir, 'code', 'app', 'main.c'), 'int main(void) { return 0; }\n');
    await git(join(home.dir, 'code', 'app'), 'init', '-q', '-b', 'main');
    await env.installFiles('peek', {
      'plugin.toml': '[plugin]\nname = "peek"\nversion = "1.0.0"\n\n[capabilities]\nfilesystem = "project"\n\n[[commands]]\nname = "peek"\nbinary = "peek.sh"\n',
      'peek.sh': PROBE,
    });
  });
  after(async () => {
    await home.cleanup();
    await env.cleanup();
  });

  test('a project that is the home folder, writable: none of it is shown, and roost says why', async () => {
    const run = await env.run(['peek'], home.dir, { HOME: home.dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '.ssh/id_ed25519: hidden\n.netrc: hidden\nnotes.txt: hidden\ncode/app/main.c: hidden');
    assert.match(run.stderr, /is not shown to peek: a plugin never sees the whole home folder/);
  });

  test('a project inside the home folder: the project alone', async () => {
    const run = await env.run(['peek'], join(home.dir, 'code', 'app'), { HOME: home.dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '.ssh/id_ed25519: hidden\n.netrc: hidden\nnotes.txt: hidden\ncode/app/main.c: readable');
  });
});
