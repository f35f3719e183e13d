// `work start --issue N` reads the issue from the code host (a fake GitHub speaking the real REST shapes):
// its title names the branch and the commit template; `work push` opens the pull request with
// "Closes #N". origin is github.com/acme/widgets as configured, rewritten by git's insteadOf to a bare
// repository on disk, so the pushes are real.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startCodeHost, type FakeCodeHost } from '../fakes/vcshost.js';
import { git, roost, tempDir, tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

const TOKEN = 'ghp_work_token';
const ORIGIN = 'https://github.com/acme/widgets.git';

describe('work start --issue with a code host', () => {
  let host: FakeCodeHost;
  let isolated: { dir: string; cleanup: () => Promise<void> };
  let env: Record<string, string>;
  before(async () => {
    isolated = await tempDir();
    host = await startCodeHost({ token: TOKEN, repos: { 'acme/widgets': { defaultBranch: 'main' } }, login: 'ada' });
    host.social.issues.push({ number: 42, repo: 'acme/widgets', title: 'Search results lose their order', body: '', state: 'open', user: 'ada' });
    env = { HOME: isolated.dir, GIT_CONFIG_NOSYSTEM: '1', GITHUB_TOKEN: TOKEN, ROOST_GITHUB_API: host.url };
  });
  after(async () => {
    await host.close();
    await isolated.cleanup();
  });

  const repo = async () => {
    const r = await tempGitRepo({ 'README.md': '# widgets\n' }, { origin: true });
    await git(r.work, 'remote', 'set-url', 'origin', ORIGIN);
    await git(r.work, 'config', `url.${r.origin}.insteadOf`, ORIGIN);
    return r;
  };

  it('names the branch after the issue, commits with its title, and opens the PR that closes it', async () => {
    const r = await repo();
    try {
      const started = await roost(['work', 'start', '--issue', '42', '--json'], { cwd: r.work, env });
      assert.equal(started.code, 0, started.stderr);
      const doc = assertSchema('work-start', started.json);
      assert.equal(doc.branch, 'test-author/feat/42-search-results-lose-their-order');
      assert.deepEqual([doc.issue, doc.issueTitle, doc.issueUrl], [42, 'Search results lose their order', 'https://codehost.test/acme/widgets/issues/42']);
      assert.equal(await git(r.origin!, 'rev-parse', doc.branch), doc.commit, 'pushed through the real remote');

      await writeFile(join(r.work, 'search.txt'), 'ordered\n');
      const pushed = await roost(['work', 'push', '--json'], { cwd: r.work, env });
      assert.equal(pushed.code, 0, pushed.stderr);
      const push = assertSchema('work-push', pushed.json);
      assert.equal(push.message, 'feat: Search results lose their order (#42)');
      assert.deepEqual(push.pullRequest, { number: 1, url: 'https://codehost.test/acme/widgets/pull/1', created: true });
      assert.deepEqual(host.pulls.map((p) => [p.head, p.base, p.title, p.body]), [[doc.branch, 'main', 'feat: Search results lose their order (#42)', 'Closes #42']]);
      assert.equal(await git(r.origin!, 'rev-parse', doc.branch), push.commit);

      await writeFile(join(r.work, 'search.txt'), 'ordered, twice\n');
      const again = await roost(['work', 'push', '--json'], { cwd: r.work, env });
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(assertSchema('work-push', again.json).pullRequest, { number: null, url: null, created: false });
      assert.equal(host.pulls.length, 1, 'the open pull request is kept');
    } finally {
      await r.cleanup();
    }
  });

  it('a given name wins; an unknown issue is the code host\'s 404; no token needs a name', async () => {
    const r = await repo();
    try {
      const unknown = await roost(['work', 'start', '--issue', '7', '--json'], { cwd: r.work, env });
      assert.equal(unknown.code, 1, unknown.stderr);
      assert.equal(assertSchema('error', unknown.json).error.code, 'NOT_FOUND');
      assert.match(unknown.json.error.message, /reading issue #7 of acme\/widgets: HTTP 404 Not Found/);
      const noToken = await roost(['work', 'start', '--issue', '42', '--json'], { cwd: r.work, env: { ...env, GITHUB_TOKEN: '' } });
      assert.equal(noToken.code, 2, noToken.stderr);
      assert.match(assertSchema('error', noToken.json).error.message, /work start needs a name, or set GITHUB_TOKEN .* issue #42/);
      const named = await roost(['work', 'start', 'keep order', '--issue', '42', '--json'], { cwd: r.work, env });
      assert.equal(named.code, 0, named.stderr);
      assert.equal(assertSchema('work-start', named.json).branch, 'test-author/feat/42-keep-order');
    } finally {
      await r.cleanup();
    }
  });
});
