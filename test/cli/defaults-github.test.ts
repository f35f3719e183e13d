// The default github plugin against test/fakes/vcshost.ts: `github prs create --fill` (title and body
// from the branch's commits), `github checks` (exit 0 / 1 / 8), and the errors a person meets.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git, tempGitRepo } from '../helpers/cli.js';
import { startCodeHost, type FakeCodeHost } from '../fakes/vcshost.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const TOKEN = 'ghp_test_token';

describe('default plugin: github', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  let host: FakeCodeHost;
  let apiEnv: Record<string, string>;

  async function commit(file: string, message: string): Promise<void> {
    await writeFile(join(repo.work, file), `${message}\n`);
    await git(repo.work, 'add', file);
    await git(repo.work, 'commit', '-q', '-m', message);
  }

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo();
    await git(repo.work, 'remote', 'add', 'origin', 'git@github.com:acme/widgets.git');
    host = await startCodeHost({
      token: TOKEN,
      repos: {
        'acme/widgets': {
          defaultBranch: 'main',
          checks: {
            'alice/feat/better-search': [
              { name: 'build', status: 'completed', conclusion: 'success' },
              { name: 'lint', status: 'completed', conclusion: 'skipped' },
            ],
            'alice/fix/two-things': [
              { name: 'build', status: 'completed', conclusion: 'success' },
              { name: 'test', status: 'completed', conclusion: 'failure' },
            ],
            'alice/feat/slow': [{ name: 'build', status: 'in_progress', conclusion: null }],
          },
        },
      },
    });
    apiEnv = { ROOST_GITHUB_API: host.url, GITHUB_TOKEN: TOKEN };
    const install = await env.run(['plugins', 'install', '--defaults'], repo.work);
    assert.equal(install.code, 0, install.stderr);
  });
  after(async () => {
    await host.close();
    await repo.cleanup();
    await env.cleanup();
  });

  test('prs create --fill with one commit: its subject and body', async () => {
    await git(repo.work, 'checkout', '-q', '-b', 'alice/feat/better-search');
    await git(repo.work, 'commit', '-q', '--allow-empty', '-m', 'Add a search index', '-m', 'Indexes every document on save.');
    const run = await env.run(['github', 'prs', 'create', '--fill', '--json'], repo.work, apiEnv);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('github-prs-create', run.json);
    assert.deepEqual(doc.pullRequest, {
      number: 1, url: 'https://codehost.test/acme/widgets/pull/1', title: 'Add a search index',
      body: 'Indexes every document on save.', head: 'alice/feat/better-search', base: 'main', draft: false,
    });
    assert.equal(doc.repository, 'acme/widgets');
    const post = host.requests.find((r) => r.method === 'POST');
    assert.equal(post?.path, '/repos/acme/widgets/pulls');
    assert.equal(post?.authorization, `Bearer ${TOKEN}`);
  });

  test('prs create --fill with several commits: the branch name and the list of subjects', async () => {
    await git(repo.work, 'checkout', '-q', '-b', 'alice/fix/two-things', 'main');
    await commit('one.txt', 'Fix the first thing');
    await commit('two.txt', 'Fix the second thing');
    const run = await env.run(['github', 'prs', 'create', '--fill', '--draft'], repo.work, apiEnv);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Opened pull request #2: https:\/\/codehost\.test\/acme\/widgets\/pull\/2$/m);
    assert.deepEqual(host.pulls[1], {
      number: 2, repo: 'acme/widgets', title: 'Two things', body: '- Fix the first thing\n- Fix the second thing',
      head: 'alice/fix/two-things', base: 'main', draft: true,
    });
  });

  test('prs create errors: duplicate, bad token, no token, no title without a terminal, unknown remote', async () => {
    const duplicate = await env.run(['github', 'prs', 'create', '--fill', '--json'], repo.work, apiEnv);
    assert.equal(duplicate.code, 1);
    assert.match(assertSchema('error', duplicate.json).error.message, /HTTP 422 Validation Failed; A pull request already exists for alice\/fix\/two-things\./);

    const badToken = await env.run(['github', 'prs', 'create', '--fill'], repo.work, { ...apiEnv, GITHUB_TOKEN: 'wrong' });
    assert.equal(badToken.code, 1);
    assert.match(badToken.stderr, /HTTP 401 Bad credentials/);

    const noToken = await env.run(['github', 'prs', 'create', '--fill'], repo.work, { ...apiEnv, GITHUB_TOKEN: '' });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /set GITHUB_TOKEN/);

    const noTitle = await env.run(['github', 'prs', 'create', '--non-interactive', '--json'], repo.work, apiEnv);
    assert.equal(noTitle.code, 2);
    assert.match(assertSchema('error', noTitle.json).error.message, /Title of the pull request: no terminal to ask/);

    const otherRepo = await env.run(['github', 'prs', 'create', '--fill', '--repo', 'acme/missing'], repo.work, apiEnv);
    assert.equal(otherRepo.code, 1);
    assert.match(otherRepo.stderr, /GET \/repos\/acme\/missing: HTTP 404 Not Found/);

    await git(repo.work, 'remote', 'set-url', 'origin', '/srv/git/widgets');
    try {
      const local = await env.run(['github', 'prs', 'create', '--fill'], repo.work, apiEnv);
      assert.equal(local.code, 2);
      assert.match(local.stderr, /cannot tell owner\/name from the origin remote \(\/srv\/git\/widgets\); pass --repo owner\/name/);
    } finally {
      await git(repo.work, 'remote', 'set-url', 'origin', 'https://github.com/acme/widgets.git');
    }
  });

  test('a registry entry linked by a roost from before [sandbox] still gets the token: a built-in\'s grant comes with roost', async () => {
    const file = join(env.home, 'plugins', 'registry.json');
    const registry = JSON.parse(await readFile(file, 'utf8'));
    for (const plugin of registry.plugins) delete plugin.sandbox;
    await writeFile(file, JSON.stringify(registry));
    const run = await env.run(['github', 'checks', '--ref', 'alice/feat/better-search', '--json'], repo.work, apiEnv);
    assert.equal(run.code, 0, run.stderr);
  });

  test('checks: a failure exits 1, all passing exits 0, pending exits 8', async () => {
    const failing = await env.run(['github', 'checks', '--json'], repo.work, apiEnv);
    assert.equal(failing.code, 1, failing.stderr);
    const doc = assertSchema('github-checks', failing.json);
    assert.equal(doc.ref, 'alice/fix/two-things');
    assert.deepEqual(doc.summary, { total: 2, passed: 1, failed: 1, pending: 0 });
    assert.deepEqual(doc.checks.map((c: any) => [c.name, c.state]), [['build', 'pass'], ['test', 'fail']]);

    const passing = await env.run(['github', 'checks', '--ref', 'alice/feat/better-search'], repo.work, apiEnv);
    assert.equal(passing.code, 0, passing.stderr);
    assert.match(passing.stdout, /^pass {4}build {2}success {2}https:\/\/codehost\.test\/acme\/widgets\/runs\/1$/m);
    assert.match(passing.stdout, /^2 passed, 0 failed, 0 pending$/m);

    const pending = await env.run(['github', 'checks', '--ref', 'alice/feat/slow', '--json'], repo.work, apiEnv);
    assert.equal(pending.code, 8);
    assert.deepEqual(assertSchema('github-checks', pending.json).summary, { total: 1, passed: 0, failed: 0, pending: 1 });
    // `roost checks` is the same command under the seed's short name.
    const short = await env.run(['checks', '--json'], repo.work, apiEnv);
    assert.equal(short.code, 1, short.stderr);
    assert.deepEqual(assertSchema('github-checks', short.json), doc);
  });
});
