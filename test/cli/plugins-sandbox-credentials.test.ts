// Credential files in the home folder stay hidden from a sandboxed plugin, even when the project it
// may write to (filesystem = "project") is the home folder itself.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findSandboxTools } from '../../kernel/host/sandbox-tools.js';
import { git, tempDir } from '../helpers/cli.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const PROBE = `#!/bin/sh
# A hidden file reads as empty (/dev/null over it), a hidden folder as empty.
for f in .ssh/id_ed25519 .netrc notes.txt; do
  if [ -s "$HOME/$f" ]; then echo "$f: readable"; else echo "$f: hidden"; fi
done
`;

const tools = findSandboxTools(process.env.ROOST_BWRAP || 'bwrap');

describe('credentials stay hidden', { skip: 'missing' in tools ? `no usable bubblewrap: ${tools.missing}` : false }, () => {
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
    await env.installFiles('peek', {
      'plugin.toml': '[plugin]\nname = "peek"\nversion = "1.0.0"\n\n[capabilities]\nfilesystem = "project"\n\n[[commands]]\nname = "peek"\nbinary = "peek.sh"\n',
      'peek.sh': PROBE,
    });
  });
  after(async () => {
    await home.cleanup();
    await env.cleanup();
  });

  test('a project in the home folder, writable: its .ssh and .netrc are still hidden', async () => {
    const run = await env.run(['peek'], home.dir, { HOME: home.dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '.ssh/id_ed25519: hidden\n.netrc: hidden\nnotes.txt: readable');
  });
});
