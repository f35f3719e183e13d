// Colour only for a terminal: a lane's progress marks are coloured under a real pseudo-terminal
// (script(1)), never when piped, and never with NO_COLOR.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { roost, roostBin, tempDir } from '../helpers/cli.js';

const ESC = '\u001b[';

describe('colour', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let hasScript = true;

  before(async () => {
    ({ dir, cleanup } = await tempDir('roost-colour-'));
    await writeFile(join(dir, 'lanes.toml'), '[lanes.ok]\nsteps = [{ run = "true", name = "fine" }]\n');
    hasScript = (await execa('script', ['--version'], { reject: false })).exitCode === 0;
  });
  after(() => cleanup());

  /** roost under a pseudo-terminal; its terminal output (stdout and stderr together). */
  const onTerminal = async (env: Record<string, string>) => {
    const result = await execa('script', ['-qec', `'${process.execPath}' '${roostBin}' lanes run ok`, '/dev/null'], {
      cwd: dir, reject: false, stdin: 'ignore', env: { ...env, ROOST_HOME: join(dir, 'home') }, extendEnv: true,
    });
    assert.equal(result.exitCode, 0, String(result.stderr));
    return String(result.stdout);
  };

  test('on a terminal the marks are coloured', async (t) => {
    if (!hasScript) return t.skip('script(1) is not installed');
    const output = await onTerminal({ ROOST_NO_COLOR: '', NO_COLOR: '' });
    assert.ok(output.includes(`${ESC}32m✓${ESC}39m fine: passed`), JSON.stringify(output));
  });

  test('NO_COLOR turns colour off even on a terminal', async (t) => {
    if (!hasScript) return t.skip('script(1) is not installed');
    const output = await onTerminal({ ROOST_NO_COLOR: '', NO_COLOR: '1' });
    assert.match(output, /✓ fine: passed/);
    assert.ok(!output.includes(ESC), JSON.stringify(output));
  });

  test('piped: no colour', async () => {
    const run = await roost(['lanes', 'run', 'ok'], { cwd: dir, env: { ROOST_NO_COLOR: '', NO_COLOR: '' } });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /✓ fine: passed/);
    assert.ok(!run.stderr.includes(ESC) && !run.stdout.includes(ESC));
  });
});
