// docs/plugins.md "Writing a plugin", as written: its plugin.toml and its sh command make a plugin folder,
// and the console session on that page is run line by line (roost is the built binary, ROOST_HOME a
// temporary one), each output compared with the page's. The optional keys shown after it are a valid
// manifest together with the first.
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { parseManifest } from '../../kernel/host/manifest.js';
import { repoRoot, roostBin } from '../helpers/paths.js';

/** The fenced blocks of one language in the "Writing a plugin" section, in order. */
function blocks(section: string, language: string): string[] {
  return [...section.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1]!);
}

describe('docs/plugins.md: writing a plugin', () => {
  let section: string;
  let work: string;
  before(async () => {
    const page = await readFile(join(repoRoot, 'docs', 'plugins.md'), 'utf8');
    section = page.slice(page.indexOf('## Writing a plugin'), page.indexOf('## Default plugins'));
    work = await mkdtemp(join(tmpdir(), 'roost-plugin-doc-'));
  });
  after(() => rm(work, { recursive: true, force: true }));

  it('installs and runs as the console session shows', async () => {
    const [manifest] = blocks(section, 'toml');
    const [command] = blocks(section, 'sh');
    const [session] = blocks(section, 'console');
    await mkdir(join(work, 'hello', 'bin'), { recursive: true });
    await writeFile(join(work, 'hello', 'plugin.toml'), manifest!);
    await writeFile(join(work, 'hello', 'bin', 'hello'), command!);
    const env = { ROOST_HOME: join(work, 'roost-home'), ROOST_NO_COLOR: '1' };
    // Each "$ " line is a command; the lines after it, up to the next one, are what it prints.
    const steps = session!.split(/^\$ /m).filter(Boolean).map((chunk) => {
      const [line, ...printed] = chunk.trimEnd().split('\n');
      return { line: line!, printed: printed.join('\n') };
    });
    assert.equal(steps.length, 4);
    for (const { line, printed } of steps) {
      const [program, ...args] = line.split(' ');
      if (program === 'chmod') {
        await chmod(join(work, args[1]!), 0o755);
        continue;
      }
      assert.equal(program, 'roost', line);
      const run = await execa(process.execPath, [roostBin, ...args], { cwd: work, env, reject: false, stdin: 'ignore' });
      assert.equal(run.exitCode, 0, `${line}\n${run.stdout}\n${run.stderr}`);
      if (printed) assert.equal(run.stdout.trim(), printed, line);
    }
  });

  it('shows optional keys that make a valid manifest with the first', async () => {
    const [manifest, optional] = blocks(section, 'toml');
    const parsed = await parseManifest(`${manifest}\n${optional}`, join(work, 'hello'));
    assert.equal(parsed.name, 'cli-plugin-hello');
    assert.equal(parsed.build?.command, 'npm ci && npm run build');
    assert.deepEqual(parsed.hooks, { post_install: 'hooks/setup.sh', pre_push: 'hooks/check.sh' });
    assert.deepEqual(parsed.sandbox, { env: ['HELLO_GREETING'], envFiles: [], sockets: [] });
  });
});
