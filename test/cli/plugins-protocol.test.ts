// cli-v1 end to end through the built roost binary: plugins written as a shell script, a Python script
// and a Node script each speak every message (init, exec, store/load, metadata, prompt, output, log,
// progress), and each capability they lack is refused the cli-v1 way (exec 126, load empty, metadata {}).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir, tempGitRepo } from '../helpers/cli.js';
import { pluginHome, reshape, type PluginHome } from './plugins-env.js';

const LANGUAGES = ['sh', 'py', 'node'] as const;

describe('plugins speak cli-v1 in three languages', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo({ 'Cargo.toml': '[package]\nname = "demo"\nversion = "0.1.0"\n' });
    for (const lang of LANGUAGES) {
      await env.install(`probe-${lang}`);
      await env.install(`probe-${lang}`, reshape(`bare-${lang}`, `bare-${lang}`, {}));
    }
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  for (const lang of LANGUAGES) {
    test(`${lang}: every message, and the store persists between runs`, async () => {
      const first = await env.run([`probe-${lang}`, 'one', 'two', '--non-interactive'], repo.work);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout, [
        'args: one two',
        'project: work',
        'exec: code=0 stdout=hello-from-exec',
        'before: ', // nothing stored yet: the seed's "absent or empty" (empty)
        'load: hi there',
        'metadata: {"name":"work","language":"rust"}',
        'prompt: anon',
        'done',
      ].join('\n')); // execa strips the final line break
      assert.match(first.stderr, new RegExp(`\\[cli-plugin-probe-${lang}\\] probe log line`));
      assert.match(first.stderr, /probing 2\/2 \(done\)/);

      const second = await env.run([`probe-${lang}`], repo.work);
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stdout, /^before: hi there$/m);
      const stored = JSON.parse(await readFile(join(env.home, 'plugin-data', `cli-plugin-probe-${lang}.json`), 'utf8'));
      assert.deepEqual(stored, { greeting: 'hi there' });
    });

    test(`${lang}: capabilities it was not granted are refused (exec 126, load empty, metadata {})`, async () => {
      const run = await env.run([`bare-${lang}`], repo.work);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^exec: code=126 stdout=$/m);
      assert.match(run.stdout, /^before: $/m);
      assert.match(run.stdout, /^load: $/m);
      assert.match(run.stdout, /^metadata: \{\}$/m);
      assert.match(run.stdout, /^prompt: anon$/m, 'prompt needs no capability');
      assert.match(run.stderr, new RegExp(`store refused: capability "store" is not granted to cli-plugin-bare-${lang}`));
      await assert.rejects(readFile(join(env.home, 'plugin-data', `cli-plugin-bare-${lang}.json`)), { code: 'ENOENT' });
    });
  }

  test('outside any project, init.project is null', async () => {
    const { dir, cleanup } = await tempDir('roost-noproject-');
    try {
      const run = await env.run(['probe-node'], dir);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^project: null$/m);
    } finally {
      await cleanup();
    }
  });
});
