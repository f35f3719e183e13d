// `lanes create` with a code-host token also creates the remote repository (POST /user/repos on a fake
// GitHub speaking the real REST shapes) and sets it as origin, so `lanes publish` works at once; the
// clone_url is a bare repository on disk. Without a token it stays local and says how to get the remote.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { startCodeHost, type FakeCodeHost } from '../fakes/vcshost.js';
import { git, gitEnv, roost, tempDir } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';

const TOKEN = 'ghp_lanes_token';

describe('lanes create with a code host', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let host: FakeCodeHost;
  let env: Record<string, string>;
  before(async () => {
    ({ dir, cleanup } = await tempDir());
    host = await startCodeHost({ token: TOKEN, repos: {}, login: 'ada', cloneUrl: (fullName) => join(dir, 'remotes', `${fullName}.git`) });
    env = { ...gitEnv, GITHUB_TOKEN: TOKEN, ROOST_GITHUB_API: host.url };
  });
  after(async () => {
    await host.close();
    await cleanup();
  });

  it('creates the remote repository, sets origin, and lanes publish pushes to it', async () => {
    const origin = join(dir, 'remotes', 'ada', 'team-lanes.git');
    await execa('git', ['init', '-q', '--bare', '-b', 'main', origin]); // what the host's clone_url names
    const created = await roost(['lanes', 'create', 'team-lanes', '--json'], { cwd: dir, env });
    assert.equal(created.code, 0, created.stderr);
    const doc = assertSchema('lanes-create', created.json);
    assert.deepEqual(doc.remote, { url: origin, htmlUrl: 'https://codehost.test/ada/team-lanes', fullName: 'ada/team-lanes' });
    const post = host.requests.find((r) => r.method === 'POST' && r.path === '/user/repos');
    assert.equal(post?.authorization, `token ${TOKEN}`);
    assert.equal(post?.body.name, 'team-lanes');
    assert.equal(await git(doc.path, 'remote', 'get-url', 'origin'), origin);

    const published = await roost(['lanes', 'publish', '--json'], { cwd: doc.path, env });
    assert.equal(published.code, 0, published.stderr);
    assert.equal(assertSchema('lanes-publish', published.json).pushed, true);
    assert.equal(await git(origin, 'rev-parse', 'main'), doc.commit);
  });

  it('a name the code host refuses is its error, and nothing is left behind', async () => {
    const again = await roost(['lanes', 'create', 'team-lanes', '--json'], { cwd: join(dir, 'remotes'), env });
    assert.equal(again.code, 1, again.stderr);
    assert.equal(assertSchema('error', again.json).error.code, 'UPSTREAM_ERROR');
    assert.match(again.json.error.message, /creating the remote repository team-lanes: HTTP 422 Repository creation failed/);
    assert.equal(existsSync(join(dir, 'remotes', 'team-lanes')), false);
    const wrongToken = await roost(['lanes', 'create', 'other', '--json'], { cwd: dir, env: { ...env, GITHUB_TOKEN: 'wrong' } });
    assert.equal(assertSchema('error', wrongToken.json).error.code, 'FORBIDDEN');
    assert.match(wrongToken.json.error.message, /HTTP 401 Bad credentials/);
    const retried = await roost(['lanes', 'create', 'other', '--json'], { cwd: dir, env: { ...gitEnv, GITHUB_TOKEN: '' } });
    assert.equal(retried.code, 0, retried.stderr);
  });

  it('without a token it stays local and says how to get the remote', async () => {
    const before = host.requests.length;
    const created = await roost(['lanes', 'create', 'local-only'], { cwd: dir, env: { ...gitEnv, GITHUB_TOKEN: '' } });
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /No remote: set GITHUB_TOKEN .* to have lanes create make it, or add one: git -C local-only remote add origin <url>/);
    assert.equal(host.requests.length, before);
    const json = await roost(['lanes', 'create', 'local-json', '--json'], { cwd: dir, env: { ...gitEnv, GITHUB_TOKEN: '' } });
    assert.equal(assertSchema('lanes-create', json.json).remote, null);
  });
});
