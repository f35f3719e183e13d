// The default secrets plugin on real git repositories: a key committed and later removed is still found
// in history (with the commit that added it), secrets in the working tree are found with their line,
// placeholders with low entropy are not, and a clean repository passes. Secrets are assembled at run
// time so this file does not itself look like a leak.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { git, tempDir, tempGitRepo, writeTree } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const AWS_KEY = ['AKIA', 'QX7B2M4N6P8R0T3V'].join('');
const GITHUB_TOKEN = ['ghp', '_', 'aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5'].join('');
const KEY_HEADER = ['-----BEGIN', 'RSA PRIVATE KEY-----'].join(' ');
const HIGH_ENTROPY = ['Zq8', 'Lw2rX9vN4kP7', 'tY3mB6hJ1cF5'].join('');

describe('default plugin: secrets', () => {
  let env: PluginHome;
  let leaky: Awaited<ReturnType<typeof tempGitRepo>>;
  let clean: Awaited<ReturnType<typeof tempGitRepo>>;
  let leakCommit: string;

  before(async () => {
    env = await pluginHome();
    leaky = await tempGitRepo({ 'README.md': '# demo\n', 'config/app.env': 'PORT=8080\n' });
    await writeFile(join(leaky.work, 'config/app.env'), `PORT=8080\nAWS_ACCESS_KEY_ID=${AWS_KEY}\n`);
    await git(leaky.work, 'commit', '-q', '-am', 'add deployment credentials');
    leakCommit = (await git(leaky.work, 'rev-parse', 'HEAD')).trim();
    await writeFile(join(leaky.work, 'config/app.env'), 'PORT=8080\n');
    await git(leaky.work, 'commit', '-q', '-am', 'remove the credentials');
    clean = await tempGitRepo({
      'README.md': '# clean\n',
      'src/config.ts': "export const password = process.env.DB_PASSWORD;\nexport const token = 'changemechangeme';\nexport const auth = settings.auth_token_v2;\n",
    });
    const install = await env.run(['plugins', 'install', '--community'], clean.work);
    assert.equal(install.code, 0, install.stderr);
  });
  after(async () => {
    await Promise.all([leaky.cleanup(), clean.cleanup()]);
    await env.cleanup();
  });

  test('a key committed and later removed is found in history, redacted, and exits 1', async () => {
    const run = await env.run(['secrets', '--scan', '--json'], leaky.work);
    assert.equal(run.code, 1, run.stderr);
    const doc = assertSchema('secrets', run.json);
    assert.equal(doc.ok, false);
    assert.equal(doc.history, true);
    assert.deepEqual(doc.findings, [
      { source: 'history', file: 'config/app.env', line: 2, commit: leakCommit, rule: 'aws-access-key-id', match: 'AKIA********' },
    ]);
    assert.ok(!run.stdout.includes(AWS_KEY), 'the key itself is never printed');
  });

  test('secrets in the working tree are found with their line; placeholders and lines marked roost:allow-secret are not', async () => {
    const { dir, cleanup } = await tempDir('roost-secrets-tree-');
    try {
      await writeFile(join(dir, 'settings.py'), `DEBUG = True\nGITHUB = "${GITHUB_TOKEN}"\napi_key = "${HIGH_ENTROPY}"\npassword = "aaaaaaaaaaaaaaaaaaaa"\nsecret_key = "abc123abc123abc123"\nEXAMPLE = "${GITHUB_TOKEN}"  # roost:allow-secret\n`);
      await writeFile(join(dir, 'id_rsa'), `${KEY_HEADER}\nMIIEowIBAAKCAQEA\n`);
      const run = await env.run(['secrets', '--scan', '--json'], dir);
      assert.equal(run.code, 1, run.stderr);
      const doc = assertSchema('secrets', run.json);
      assert.equal(doc.history, false, 'outside a git repository there is no history');
      assert.deepEqual(doc.findings.map((f: any) => [f.source, f.file, f.line, f.commit, f.rule]).sort(), [
        ['tree', 'id_rsa', 1, null, 'private-key'],
        ['tree', 'settings.py', 2, null, 'github-token'],
        ['tree', 'settings.py', 3, null, 'high-entropy-assignment'],
      ]);
      assert.ok(!run.stdout.includes(GITHUB_TOKEN) && !run.stdout.includes(HIGH_ENTROPY));
      const text = await env.run(['secrets', '--scan'], dir);
      assert.equal(text.code, 1);
      assert.match(text.stdout, /^3 possible secrets \(2 files in .*\):$/m);
      assert.match(text.stdout, /^ {2}settings\.py:2 \[github-token\] ghp_\*{8}$/m);
      assert.equal(text.stderr, '', 'findings are the answer, not a crash: no error and no "exited with code" line');
      // log2(6) ≈ 2.58 bits per character: below the default threshold, above a lowered one.
      const lowered = await env.run(['secrets', '--scan', '--entropy', '2.5', '--json'], dir);
      assert.ok(assertSchema('secrets', lowered.json).findings.some((f: any) => f.line === 5 && f.rule === 'high-entropy-assignment'));
    } finally {
      await cleanup();
    }
  });

  test('weighs what a person would: placeholders, function calls and made-up test credentials pass, real keys in tests do not', async () => {
    const { dir, cleanup } = await tempDir('roost-secrets-fixtures-');
    try {
      await writeTree(dir, {
        'test/session.test.ts': [
          "const refreshed = { newToken: 'refreshed-token-123', apiKey: 'embed-test-owner-key-0123456789' };",
          "export const BOT_TOKEN = 'xoxb-1-roost-test';",
          `const leaked = '${GITHUB_TOKEN}';`,
          '',
        ].join('\n'),
        'src/keys.ts': "const privateKey = x25519PrivateFromSeed(derive(secretKey, 'x25519'));\n",
        'src/config.py': `api_key = "${HIGH_ENTROPY}"\n`,
      });
      const run = await env.run(['secrets', '--scan', '--json'], dir);
      assert.equal(run.code, 1, run.stderr);
      assert.deepEqual(assertSchema('secrets', run.json).findings.map((f: any) => [f.file, f.line, f.rule]).sort(), [
        ['src/config.py', 1, 'high-entropy-assignment'],
        ['test/session.test.ts', 3, 'github-token'],
      ]);
    } finally {
      await cleanup();
    }
  });

  test('tells its progress through the history', async () => {
    const run = await env.run(['secrets', '--scan'], leaky.work);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /scanning the git history \d+\/\d+ \(done\)/);
  });

  test('a clean repository passes, history included', async () => {
    const run = await env.run(['secrets', '--scan', '--json'], clean.work);
    assert.equal(run.code, 0, run.stderr);
    const doc = assertSchema('secrets', run.json);
    assert.deepEqual([doc.ok, doc.files, doc.history, doc.findings], [true, 2, true, []]);
    const text = await env.run(['secrets', '--scan'], clean.work);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^No secrets found \(2 files and the git history in .*\)\.$/m);
  });

  test('--no-history scans the working tree only; ignored files are skipped', async () => {
    await writeFile(join(leaky.work, '.gitignore'), 'local.env\n');
    await writeFile(join(leaky.work, 'local.env'), `AWS_ACCESS_KEY_ID=${AWS_KEY}\n`);
    try {
      const run = await env.run(['secrets', '--scan', '--no-history', '--json'], leaky.work);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual([run.json.history, run.json.findings], [false, []]);
    } finally {
      await rm(join(leaky.work, '.gitignore'));
      await rm(join(leaky.work, 'local.env'));
    }
  });

  test('bad input: no --scan, a bad --entropy, an unknown flag exit 2', async () => {
    for (const args of [['secrets', '--json'], ['secrets', '--scan', '--entropy', 'lots', '--json'], ['secrets', '--scna', '--json']]) {
      const run = await env.run(args, clean.work);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(assertSchema('error', run.json).error.code, 'USAGE');
    }
    const none = await env.run(['secrets', '--json'], clean.work);
    assert.match(none.json.error.message, /needs --scan/);
  });
});
