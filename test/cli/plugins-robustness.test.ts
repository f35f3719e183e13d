// Plugins that misbehave — crash, die by a signal, hang, ignore cancel, flood 10 MiB, talk garbage —
// never take roost down: it reports what happened on stderr and exits with a code that says so.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { roostBin, tempGitRepo } from '../helpers/cli.js';
import { hostPid, isAlive } from '../helpers/sandbox-pids.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const MIB = 1024 * 1024;

describe('a misbehaving plugin never takes roost down', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo();
    await env.install('misbehave');
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  /** Starts `roost misbehave <mode>` and resolves once it printed `marker` on stdout. */
  async function startUntil(mode: string, marker: string, extraEnv: Record<string, string> = {}) {
    const child = execa(process.execPath, [roostBin, 'misbehave', mode], {
      cwd: repo.work, env: { ...env.env, ...extraEnv }, reject: false, stdin: 'ignore', timeout: 60_000,
    });
    let stdout = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => (stdout += chunk));
    while (!stdout.includes(marker)) await once(child.stdout!, 'data');
    return { child, stdout: () => stdout };
  }

  test('a crash is reported with the plugin exit code', async () => {
    const run = await env.run(['misbehave', 'crash'], repo.work);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Error: boom/);
    assert.match(run.stderr, /roost: cli-plugin-misbehave exited with code 1/);
  });

  test('death by a signal is reported and exits 128 + the signal number', async () => {
    const run = await env.run(['misbehave', 'signal'], repo.work);
    assert.equal(run.code, 137);
    assert.match(run.stderr, /cli-plugin-misbehave was killed by SIGKILL/);
  });

  test('10 MiB of output messages reach stdout intact', async () => {
    const run = await env.run(['misbehave', 'flood'], repo.work);
    assert.equal(run.code, 0, run.stderr.slice(0, 500));
    const expected = `${'x'.repeat(1023)}\n`.repeat(10 * 1024);
    assert.equal(run.stdout.length, expected.length - 1); // execa strips the final line break
    assert.ok(expected.startsWith(run.stdout));
  });

  test('10 MiB of garbage lines are dropped with a bounded number of warnings', async () => {
    const run = await env.run(['misbehave', 'garbage'], repo.work);
    assert.equal(run.code, 0, run.stderr.slice(0, 500));
    assert.equal(run.stdout, 'still talking');
    assert.match(run.stderr, /protocol: \{"kind":"invalid_json"/);
    const warnings = run.stderr.split('\n').filter((l) => l.includes('invalid_json')).length;
    assert.ok(warnings >= 1 && warnings <= 50, `warnings are rate limited, got ${warnings}`);
  });

  test('one line past the frame limit is skipped and the conversation goes on', async () => {
    const run = await env.run(['misbehave', 'oversize'], repo.work);
    assert.equal(run.code, 0, run.stderr.slice(0, 500));
    assert.equal(run.stdout, 'after the big one');
    const reported = /"kind":"oversize","bytes":(\d+)/.exec(run.stderr);
    assert.ok(reported, run.stderr.slice(0, 500));
    assert.ok(Number(reported[1]) > 16 * MIB);
  });

  test('malformed, unknown and forbidden messages get clear answers; good ones are still served', async () => {
    const run = await env.run(['misbehave', 'junk'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, [
      'bad: error VALIDATION_ERROR',
      'denied: error CAPABILITY_DENIED',
      'unknown: error UNKNOWN_TYPE',
      'good: {"code":0,"stdout":"still-served\\n","stderr":""}',
    ].join('\n'));
    assert.match(run.stderr, /"kind":"invalid_json","sample":"this is not json"/);
    assert.match(run.stderr, /"kind":"not_object","sample":"\[1,2,3\]"/);
    assert.match(run.stderr, /exec\.id is required; exec\.command is required/);
  });

  test('Ctrl-C sends cancel; a plugin that honours it leaves and roost exits 130', async () => {
    const { child } = await startUntil('hang', 'hanging until cancelled');
    child.kill('SIGINT');
    const result = await child;
    assert.equal(result.exitCode, 130);
    assert.match(String(result.stderr), /roost: interrupted; asking cli-plugin-misbehave to stop/);
    assert.match(String(result.stderr), /misbehave: got cancel, leaving/);
  });

  test('a plugin that ignores cancel and SIGTERM is killed (SIGKILL 10 s after cancel)', async () => {
    const { child, stdout } = await startUntil('stubborn', 'ignoring everything');
    // The pid it reports is its sandbox's (a PID namespace): the host pid is found below roost.
    const pid = hostPid(child.pid!, Number(/pid=(\d+)/.exec(stdout())![1]));
    assert.ok(pid !== undefined && isAlive(pid));
    child.kill('SIGINT');
    const result = await child;
    assert.equal(result.exitCode, 130);
    assert.match(String(result.stderr), /misbehave: ignoring SIGTERM/);
    assert.equal(isAlive(pid), false, 'the plugin process is gone');
  });

  test('ROOST_PLUGIN_TIMEOUT cancels a plugin that runs too long (exit 124)', async () => {
    const run = await env.run(['misbehave', 'hang'], repo.work, { ROOST_PLUGIN_TIMEOUT: '1' });
    assert.equal(run.code, 124);
    assert.match(run.stderr, /cli-plugin-misbehave ran past 1 s/);
  });
});
