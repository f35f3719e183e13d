// plugins install / list / remove through the built binary: from a bare repository on ROOST_GIT_HOST
// (build step, post_install), approval, refusals (protocol, name, clashes), and roll-back that leaves
// nothing behind.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { git, tempDir, tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { fixturesDir, pluginHome, type PluginHome } from './plugins-env.js';

/** Publishes a fixture as <host>/<org>/<name>.git, the way a code host would serve it. */
async function publish(host: string, org: string, fixture: string, edit?: (files: string) => Promise<void>): Promise<void> {
  const { dir, cleanup } = await tempDir('roost-publish-');
  try {
    const work = join(dir, 'work');
    await cp(join(fixturesDir, fixture), work, { recursive: true });
    if (edit) await edit(work);
    await git(work, 'init', '-q', '-b', 'main');
    await git(work, 'add', '-A');
    await git(work, 'commit', '-q', '-m', 'publish');
    const manifest = await readFile(join(work, 'plugin.toml'), 'utf8');
    const name = /^name = "([^"]+)"/m.exec(manifest)![1]!;
    await mkdir(join(host, org), { recursive: true });
    await execa('git', ['clone', '-q', '--bare', work, join(host, org, `${name}.git`)]);
  } finally {
    await cleanup();
  }
}

const replaceInManifest = (from: string | RegExp, to: string) => async (work: string) => {
  const file = join(work, 'plugin.toml');
  await writeFile(file, (await readFile(file, 'utf8')).replace(from, to));
};

describe('plugins install, list, remove', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  let gitHost: { dir: string; cleanup: () => Promise<void> };
  let hostEnv: Record<string, string>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo();
    gitHost = await tempDir('roost-githost-');
    hostEnv = { ROOST_GIT_HOST: gitHost.dir };
    await publish(gitHost.dir, 'acme', 'hooked');
    await publish(gitHost.dir, 'acme', 'hooked', async (work) => {
      await replaceInManifest('name = "cli-plugin-hooked"', 'name = "cli-plugin-broken-build"')(work);
      await replaceInManifest(/^command = .*$/m, 'command = "echo compiling the plugin; exit 3"')(work);
      await replaceInManifest('name = "hello"', 'name = "broken"')(work);
    });
    await publish(gitHost.dir, 'acme', 'hooked', async (work) => {
      await replaceInManifest('name = "cli-plugin-hooked"', 'name = "cli-plugin-bad-hook"')(work);
      await replaceInManifest('name = "hello"', 'name = "bad-hook"')(work);
      await writeFile(join(work, 'hooks/post-install.sh'), [
        '#!/bin/sh',
        'IFS= read -r init',
        `printf '%s\\n' '{"type":"store","id":"1","key":"half","value":"done"}'`,
        'IFS= read -r reply',
        'echo "post_install gave up" >&2',
        'exit 4',
        '',
      ].join('\n'));
    });
  });
  after(async () => {
    await Promise.all([repo.cleanup(), gitHost.cleanup()]);
    await env.cleanup();
  });

  test('without --yes and without a terminal, approval is a usage error and nothing is installed', async () => {
    const run = await env.run(['plugins', 'install', 'acme/cli-plugin-hooked'], repo.work, hostEnv);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /capabilities: store/);
    assert.match(run.stderr, /hooks: post_install \(hooks\/post-install\.sh\), pre_push \(hooks\/pre-push\.sh\)/);
    assert.match(run.stderr, /pass --yes/);
    assert.equal(existsSync(join(env.home, 'plugins')), false, 'nothing left behind');

    const json = await env.run(['plugins', 'install', 'acme/cli-plugin-hooked', '--json'], repo.work, hostEnv);
    assert.equal(json.code, 2);
    assertSchema('error', json.json);
    assert.equal(json.json.error.code, 'USAGE');
  });

  test('installs from the git host: build, post_install, commands linked, registry written', async () => {
    const run = await env.run(['plugins', 'install', 'acme/cli-plugin-hooked', '--yes', '--json'], repo.work, hostEnv);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('plugins-install', run.json);
    assert.deepEqual(doc.installed.map((p: any) => [p.name, p.version, p.commands, p.hooks, p.linked]), [
      ['cli-plugin-hooked', '1.2.0', ['hello'], ['post_install', 'pre_push'], false],
    ]);
    assert.match(run.stderr, /post_install ran/);
    assert.equal(doc.installed[0].dir, join(env.home, 'plugins', 'cli-plugin-hooked'));

    const hello = await env.run(['hello'], repo.work);
    assert.equal(hello.code, 0, hello.stderr);
    assert.equal(hello.stdout, 'hello; installed=yes', 'the built binary runs and sees what post_install stored');

    const registry = JSON.parse(await readFile(join(env.home, 'plugins', 'registry.json'), 'utf8'));
    assert.deepEqual(registry.plugins.map((p: any) => p.name), ['cli-plugin-hooked']);
    const leftovers = (await readdir(join(env.home, 'plugins'))).filter((f) => f.startsWith('.staging') || f.endsWith('.tmp'));
    assert.deepEqual(leftovers, []);
  });

  test('plugins list --json shows what was approved', async () => {
    const run = await env.run(['plugins', 'list', '--json'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('plugins-list', run.json);
    const hooked = doc.plugins.find((p: any) => p.name === 'cli-plugin-hooked');
    assert.deepEqual(hooked.capabilities, ['store']);
    assert.deepEqual(hooked.commands, [{ name: 'hello', description: 'Greets, with what post_install stored' }]);
    assert.match(hooked.source, /acme\/cli-plugin-hooked\.git$/);
  });

  test('introspect --json lists plugin commands with the plugin as their source', async () => {
    const run = await env.run(['introspect', '--json'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    assertSchema('introspect', run.json);
    const hello = run.json.commands.find((c: any) => c.name === 'hello');
    assert.equal(hello?.source, 'cli-plugin-hooked');
    assert.equal(run.json.commands.find((c: any) => c.name === 'plugins install')?.source, 'builtin');
  });

  test('a failing build rolls everything back', async () => {
    const before = await readFile(join(env.home, 'plugins', 'registry.json'), 'utf8');
    const run = await env.run(['plugins', 'install', 'acme/cli-plugin-broken-build', '--yes'], repo.work, hostEnv);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /build of cli-plugin-broken-build failed \(`echo compiling the plugin; exit 3` exited with code 3\)/);
    assert.match(run.stderr, /compiling the plugin/);
    assert.deepEqual(await readdir(join(env.home, 'plugins')), ['cli-plugin-hooked', 'registry.json']);
    assert.equal(await readFile(join(env.home, 'plugins', 'registry.json'), 'utf8'), before);
  });

  test('a failing post_install rolls back the checkout and the values it stored', async () => {
    const before = await readFile(join(env.home, 'plugins', 'registry.json'), 'utf8');
    const run = await env.run(['plugins', 'install', 'acme/cli-plugin-bad-hook', '--yes'], repo.work, hostEnv);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /post_install hook of cli-plugin-bad-hook failed with code 4/);
    assert.match(run.stderr, /post_install gave up/);
    assert.deepEqual(await readdir(join(env.home, 'plugins')), ['cli-plugin-hooked', 'registry.json']);
    assert.equal(existsSync(join(env.home, 'plugin-data', 'cli-plugin-bad-hook.json')), false);
    assert.equal(await readFile(join(env.home, 'plugins', 'registry.json'), 'utf8'), before);
  });

  test('a manifest with another protocol is refused with a clear error', async () => {
    const { dir, cleanup } = await tempDir('roost-host2-');
    try {
      await publish(dir, 'acme', 'hooked', async (work) => {
        await replaceInManifest('protocol = "cli-v1"', 'protocol = "cli-v2"')(work);
        await replaceInManifest('name = "cli-plugin-hooked"', 'name = "cli-plugin-future"')(work);
      });
      const run = await env.run(['plugins', 'install', 'acme/cli-plugin-future', '--yes', '--json'], repo.work, { ROOST_GIT_HOST: dir });
      assert.equal(run.code, 1);
      assertSchema('error', run.json);
      assert.equal(run.json.error.message, 'plugin cli-plugin-future speaks protocol "cli-v2"; this host speaks "cli-v1" (CLI plugins also "fledge-v1", or none for a plain plugin)');
    } finally {
      await cleanup();
    }
  });

  test('refusals: bad name, clash with a built-in, clash with another plugin, already installed, unknown repo', async () => {
    const cases: Array<[edit: (toml: string) => string, message: RegExp]> = [
      [(t) => t.replace('name = "cli-plugin-probe-sh"', 'name = "Probe_SH"'), /plugin\.toml\.plugin\.name must match pattern/],
      [(t) => t.replace('name = "probe-sh"', 'name = "run"'), /command "run" of cli-plugin-probe-sh clashes with roost's built-in "run"/],
      [(t) => t.replace('name = "probe-sh"', 'name = "hello"'), /command "hello" of cli-plugin-probe-sh clashes with "hello" of cli-plugin-hooked/],
    ];
    for (const [edit, message] of cases) {
      const source = await env.copyFixture('probe-sh', edit);
      const run = await env.run(['plugins', 'install', source, '--yes'], repo.work);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, message);
    }
    const again = await env.run(['plugins', 'install', 'acme/cli-plugin-hooked', '--yes'], repo.work, hostEnv);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /cli-plugin-hooked is already installed; run roost plugins remove cli-plugin-hooked first/);
    const byUrl = await env.run(['plugins', 'install', `file://${join(gitHost.dir, 'acme', 'cli-plugin-hooked.git')}`, '--yes'], repo.work);
    assert.equal(byUrl.code, 1, 'a file:// git URL resolves to the same plugin');
    assert.match(byUrl.stderr, /cli-plugin-hooked is already installed/);
    const notASource = await env.run(['plugins', 'install', 'just-a-word', '--yes'], repo.work);
    assert.equal(notASource.code, 2);
    assert.match(notASource.stderr, /"just-a-word" is neither <org>\/<repo>, a path \(start it with \.\/ or \/\) nor a git URL/);
    const missing = await env.run(['plugins', 'install', 'acme/nothing-here', '--yes'], repo.work, hostEnv);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no repository acme\/nothing-here under ROOST_GIT_HOST/);
    assert.deepEqual(await readdir(join(env.home, 'plugins')), ['cli-plugin-hooked', 'registry.json']);
  });

  test('a damaged registry is reported, never silently replaced', async () => {
    const damaged = await pluginHome();
    try {
      await mkdir(join(damaged.home, 'plugins'), { recursive: true });
      await writeFile(join(damaged.home, 'plugins', 'registry.json'), '{"version":1,"plugins":[{"name":');
      const list = await damaged.run(['plugins', 'list'], repo.work);
      assert.equal(list.code, 1);
      assert.match(list.stderr, /registry\.json is not valid JSON; repair it or remove it/);
      const command = await damaged.run(['hello'], repo.work);
      assert.equal(command.code, 1);
      assert.match(command.stderr, /registry\.json is not valid JSON/);
    } finally {
      await damaged.cleanup();
    }
  });

  test('pre_push hooks run before work push; a failing hook stops the push', async () => {
    const pushRepo = await tempGitRepo({ 'README.md': '# push me\n' }, { origin: true });
    try {
      await git(pushRepo.work, 'checkout', '-q', '-b', 'tester/feat/hooks');
      await writeFile(join(pushRepo.work, 'change.txt'), 'a change\n');
      await writeFile(join(pushRepo.work, '.block-push'), '');
      const blocked = await env.run(['work', 'push'], pushRepo.work);
      assert.notEqual(blocked.code, 0);
      assert.match(blocked.stderr, /push blocked by \.block-push/);
      assert.match(blocked.stderr, /cli-plugin-hooked \(exit 3\)/);
      const remoteBranches = await git(pushRepo.origin!, 'branch', '--list');
      assert.doesNotMatch(remoteBranches, /tester\/feat\/hooks/, 'nothing was pushed');

      await execa('rm', [join(pushRepo.work, '.block-push')]);
      const pushed = await env.run(['work', 'push'], pushRepo.work);
      assert.equal(pushed.code, 0, pushed.stderr);
      assert.match(pushed.stderr, /pre_push checks passed/);
      assert.match(await git(pushRepo.origin!, 'branch', '--list'), /tester\/feat\/hooks/);
    } finally {
      await pushRepo.cleanup();
    }
  });

  test('plugins remove drops the command, the checkout and (with --purge) the stored values', async () => {
    const run = await env.run(['plugins', 'remove', 'hooked', '--purge', '--json'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('plugins-remove', run.json);
    assert.deepEqual(doc.removed, { name: 'cli-plugin-hooked', version: '1.2.0', dir: join(env.home, 'plugins', 'cli-plugin-hooked'), linked: false });
    assert.equal(doc.purged, true);
    assert.equal(existsSync(join(env.home, 'plugins', 'cli-plugin-hooked')), false);
    assert.equal(existsSync(join(env.home, 'plugin-data', 'cli-plugin-hooked.json')), false);
    const gone = await env.run(['hello'], repo.work);
    assert.equal(gone.code, 2);
    assert.match(gone.stderr, /unknown command "hello"/);
    const again = await env.run(['plugins', 'remove', 'hooked'], repo.work);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no plugin named hooked is installed/);
  });
});
