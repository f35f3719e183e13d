// The deploy plugin on a real temporary project: targets from roost.toml [deploy.<target>], their commands
// run as the person through the streamed exec (output seen while the command still runs), the target's
// variables, the first failure's exit code, confirmation for production, time limits, Ctrl-C, and
// malformed roost.toml tables refused before anything runs.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { roostBin, tempGitRepo, writeTree } from '../helpers/cli.js';
import { isAlive } from '../helpers/sandbox-pids.js';
import { waitFor } from '../helpers/wait.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

// A deploy script the way projects write them: progress lines, then it waits for a release file the test
// creates (so the test sees the first lines while it still runs), then the rest.
const DEPLOY_SCRIPT = `#!/bin/sh
echo "deploying $APP_ENV as $DEPLOY_USER"
echo "uploading" >&2
while [ ! -f release ]; do sleep 0.05; done
echo "released"
`;

const ROOST_TOML = `
[deploy.staging]
description = "Staging, streamed"
commands = ["echo building", "./deploy.sh"]
env = { APP_ENV = "staging's", DEPLOY_USER = "ci" }

[deploy.broken]
commands = ["echo first", "exit 3", "touch should-not-exist"]

[deploy.production]
run = "touch deployed-to-production"

[deploy.slow]
run = "echo $$ > slow.pid; while true; do sleep 0.05; done"
timeout = 1

[deploy.loud]
run = "seq 1 100000"

[deploy.waits]
run = "echo $$ > waits.pid; echo waiting; while true; do sleep 0.05; done"
`;

describe('community plugin: deploy', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo({ 'roost.toml': ROOST_TOML, 'deploy.sh': DEPLOY_SCRIPT, 'README.md': '# shop\n' });
    await execa('chmod', ['+x', join(repo.work, 'deploy.sh')]);
    const install = await env.run(['plugins', 'install', '--community'], repo.work);
    assert.equal(install.code, 0, install.stderr);
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  const start = (args: string[]) => execa(process.execPath, [roostBin, 'deploy', ...args], {
    cwd: repo.work, reject: false, stdin: 'ignore', buffer: true, env: { ...env.env, ROOST_NO_COLOR: '1' },
  });

  test('alone, deploy lists the targets, with those that ask for confirmation', async () => {
    const text = await env.run(['deploy'], repo.work);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^staging\s+Staging, streamed$/m);
    assert.match(text.stdout, /^production\s+touch deployed-to-production\s+\(confirm\)$/m);
    const json = await env.run(['deploy', '--json'], repo.work);
    assert.deepEqual(assertSchema('deploy', json.json).targets.map((t: { name: string; confirm: boolean }) => [t.name, t.confirm]), [
      ['staging', false], ['broken', false], ['production', true], ['slow', false], ['loud', false], ['waits', false],
    ]);
  });

  test('a target streams its output while it runs, with its variables, and exits 0 when every command passes', async () => {
    const run = start(['--target', 'staging']);
    let stdout = '';
    run.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await waitFor('the first lines of the running deploy', async () => (stdout.includes("deploying staging's as ci") ? true : undefined), 30_000);
    assert.equal(run.exitCode, null, 'the deploy is still running when its first lines show');
    assert.ok(stdout.startsWith('building\n'), 'the commands run in order');
    await writeFile(join(repo.work, 'release'), '');
    const result = await run;
    assert.equal(result.exitCode, 0, String(result.stderr));
    assert.match(stdout, /released\n/);
    assert.match(String(result.stdout), /Deployed to staging \(2 commands\)\./);
    assert.match(String(result.stderr), /==> echo building\n[\s\S]*==> \.\/deploy\.sh\n[\s\S]*uploading/, 'headers and the commands\' stderr go to stderr');
  });

  test('the first failing command stops the deploy and its exit code is roost\'s; --json reports the steps', async () => {
    const text = await env.run(['deploy', '--target', 'broken'], repo.work);
    assert.equal(text.code, 3);
    assert.match(text.stderr, /deploy to broken failed: "exit 3" exited with 3/);
    assert.equal(existsSync(join(repo.work, 'should-not-exist')), false, 'commands after the failure do not run');
    const json = await env.run(['deploy', '--target', 'broken', '--json'], repo.work);
    assert.equal(json.code, 3);
    const doc = assertSchema('deploy', json.json);
    assert.equal(doc.ok, false);
    assert.equal(doc.deployed, false);
    assert.deepEqual(doc.steps.map((s: { command: string; code: number }) => [s.command, s.code]), [['echo first', 0], ['exit 3', 3]]);
    assert.match(json.stderr, /^first$/m, 'with --json the commands\' output goes to stderr');
  });

  test('production asks for confirmation: without a terminal nothing runs (exit 2); --yes deploys', async () => {
    const refused = await env.run(['deploy', '--target', 'production'], repo.work);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /deploy to production not confirmed.*--yes.*nothing ran/);
    assert.equal(existsSync(join(repo.work, 'deployed-to-production')), false);
    const dry = await env.run(['deploy', '--target', 'production', '--dry-run', '--json'], repo.work);
    assert.deepEqual(assertSchema('deploy', dry.json), {
      schema_version: 1, ok: true, target: 'production', dryRun: true, commands: ['touch deployed-to-production'], cwd: '.', env: [], confirm: true,
    });
    assert.equal(existsSync(join(repo.work, 'deployed-to-production')), false, 'a dry run runs nothing');
    const yes = await env.run(['deploy', '--target', 'production', '--yes'], repo.work);
    assert.equal(yes.code, 0, yes.stderr);
    assert.equal(existsSync(join(repo.work, 'deployed-to-production')), true);
  });

  test('long output arrives whole and in order (100,000 lines, far past one pipe buffer)', async () => {
    const run = await env.run(['deploy', '--target', 'loud'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.split('\n').filter((l) => /^\d+$/.test(l)).map(Number);
    assert.equal(lines.length, 100_000);
    assert.ok(lines.every((n, i) => n === i + 1), 'no chunk lost or reordered');
  });

  test('a command past the target\'s timeout is killed with its group and the deploy exits 124', async () => {
    const run = await env.run(['deploy', '--target', 'slow'], repo.work);
    assert.equal(run.code, 124);
    assert.match(run.stderr, /roost: command timed out after 1 s/);
    const pid = Number(await readFile(join(repo.work, 'slow.pid'), 'utf8'));
    await waitFor('the timed-out command to be gone', async () => (isAlive(pid) ? undefined : true));
  });

  test('Ctrl-C stops the running command and exits 130', async () => {
    const run = start(['--target', 'waits']);
    let stdout = '';
    run.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await waitFor('the command to start', async () => (stdout.includes('waiting') && existsSync(join(repo.work, 'waits.pid')) ? true : undefined), 30_000);
    const pid = Number(await readFile(join(repo.work, 'waits.pid'), 'utf8'));
    run.kill('SIGINT');
    const result = await run;
    assert.equal(result.exitCode, 130, String(result.stderr));
    await waitFor('the interrupted command to be gone', async () => (isAlive(pid) ? undefined : true));
  });

  test('bad input: an unknown target, stray arguments and malformed [deploy] tables exit 2 before anything runs', async () => {
    const unknown = await env.run(['deploy', '--target', 'nope', '--json'], repo.work);
    assert.equal(unknown.code, 2);
    assert.match(assertSchema('error', unknown.json).error.message, /no deploy target "nope"; targets: staging, broken, production, slow, loud, waits/);
    const stray = await env.run(['deploy', 'staging'], repo.work);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /unexpected argument staging: name the target with --target/);

    const cases: Array<[string, RegExp]> = [
      ['[deploy.x\nrun = "touch ran"', /is not valid TOML/],
      ['[deploy.x]\nrun = "touch ran"\ncommands = ["touch ran"]', /give run or commands, not both/],
      ['[deploy.x]\ncommands = []', /needs run = "<command>" or commands/],
      ['[deploy.x]\nrun = "touch ran"\nenv = { PORT = 80 }', /\[deploy\.x\]\.env\.PORT must be a string/],
      ['[deploy.x]\nrun = "touch ran"\nenv = { "BAD-NAME" = "1" }', /"BAD-NAME" is not a variable name/],
      ['[deploy.x]\nrun = "touch ran"\nhost = "prod"', /unknown key host/],
      ['[deploy.x]\nrun = "touch ran"\ntimeout = 0', /timeout must be seconds/],
      ['deploy = "everywhere"', /\[deploy\] must be a table of targets/],
    ];
    const bad = await tempGitRepo({ 'README.md': '# bad\n' });
    try {
      for (const [toml, message] of cases) {
        await writeTree(bad.work, { 'roost.toml': toml });
        const run = await env.run(['deploy', '--target', 'x', '--yes'], bad.work);
        assert.equal(run.code, 2, `${toml}: ${run.stderr}`);
        assert.match(run.stderr, message, toml);
        assert.equal(existsSync(join(bad.work, 'ran')), false, `${toml}: nothing ran`);
      }
    } finally {
      await bad.cleanup();
    }
  });
});
