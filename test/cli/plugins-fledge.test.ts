// fledge plugins install unchanged apart from their protocol line, and run: a plain bash plugin
// (arguments in argv, its own stdio, its exit code kept), a fledge-v1 plugin in Python (fire-and-forget
// store, select by index, multi_select, fledge's metadata keys, init.fledge and init.command), and a
// Rust fledge-v1 plugin when cargo can build one offline. A wasm plugin is refused with a clear error.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { git, roostBin, tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

describe('fledge plugins', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo({ 'Cargo.toml': '[package]\nname = "demo"\nversion = "0.1.0"\n' });
    await git(repo.work, 'tag', 'v0.1.0');
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('a plain bash plugin: [hooks] build runs at install, argv in, output and exit code through', async () => {
    const install = await env.install('fledge-plain');
    assert.match(install.stderr, /fledge-plugin-greet 0\.2\.0 from .* by Test Author/);
    assert.match(install.stderr, /protocol: none \(plain/);
    assert.match(install.stderr, /environment variables: EXIT_WITH/);
    const run = await env.run(['greet', 'world', '--loud'], repo.work, { EXIT_WITH: '7' });
    assert.equal(run.code, 7, run.stderr);
    const dir = join(env.home, 'plugins', 'fledge-plugin-greet');
    assert.equal(run.stdout, `hello world --loud\nplugin dir: ${dir} / ${dir}`);
    assert.match(run.stderr, /^to stderr$/m);
    const list = await env.run(['plugins', 'list', '--json'], repo.work);
    assertSchema('plugins-list', list.json);
    const entry = list.json.plugins.find((p: { name: string }) => p.name === 'fledge-plugin-greet');
    assert.equal(entry.protocol, 'plain');
  });

  test('a plain plugin gets SIGINT when roost is interrupted, in its sandbox too', async () => {
    await env.installFiles('waiter', {
      'plugin.toml': '[plugin]\nname = "fledge-plugin-waiter"\nversion = "1.0.0"\n\n[[commands]]\nname = "waiter"\nbinary = "wait.sh"\n',
      'wait.sh': '#!/usr/bin/env bash\ntrap \'echo "got SIGINT"; kill $! 2>/dev/null; exit 3\' INT\necho ready\nsleep 300 &\nwait\n',
    });
    const child = execa(process.execPath, [roostBin, 'waiter'], { cwd: repo.work, env: env.env, reject: false, stdin: 'ignore', timeout: 60_000 });
    let stdout = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => (stdout += chunk));
    while (!stdout.includes('ready')) await once(child.stdout!, 'data');
    child.kill('SIGINT');
    const result = await child;
    assert.equal(result.exitCode, 130);
    assert.match(String(result.stdout), /^got SIGINT$/m);
  });

  test('a fledge-v1 Python plugin speaks its dialect through the same host', async () => {
    await env.install('fledge-py');
    await git(repo.work, 'commit', '-q', '--allow-empty', '-m', 'second commit');
    const run = await env.run(['survey-again', 'a b', '--non-interactive'], repo.work, { MY_API_TOKEN: 'secret' });
    assert.equal(run.code, 0, run.stderr);
    const lines = Object.fromEntries(run.stdout.split('\n').map((l) => [l.slice(0, l.indexOf(':')), JSON.parse(l.slice(l.indexOf(':') + 2))]));
    assert.deepEqual(lines, {
      protocol: 'fledge-v1',
      command: 'survey-again',
      args: ['a b'],
      fledge: ['version'],
      capabilities: { exec: false, filesystem: true, metadata: true, store: true },
      'plugin dir': true,
      before: '', // nothing stored yet: the seed's "absent or empty" (empty)
      after: 'teal',
      select: 'staging',
      multi: ['us', 'ap'],
      tags: ['v0.1.0'],
      log: ['second commit', 'initial'],
      status: [],
      'env has HOME': true,
      'env hides secrets': true,
      exec: 126,
    });
    const stored = JSON.parse(await readFile(join(env.home, 'plugin-data', 'fledge-plugin-survey.json'), 'utf8'));
    assert.deepEqual(stored, { colour: 'teal' });
  });

  test('a fledge-v1 plugin is cancelled in fledge\'s words: "timeout" when it runs past its limit', async () => {
    await env.installFiles('patient', {
      'plugin.toml': '[plugin]\nname = "fledge-patient"\nversion = "1.0.0"\nprotocol = "fledge-v1"\n\n[[commands]]\nname = "patient"\nbinary = "wait.py"\n',
      'wait.py': `#!/usr/bin/env python3
import json, sys
sys.stdin.readline()
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "cancel":
        print(json.dumps({"type": "output", "text": "cancelled: " + message["reason"]}), flush=True)
        sys.exit(1)
`,
    });
    const run = await env.run(['patient'], repo.work, { ROOST_PLUGIN_TIMEOUT: '1' });
    assert.equal(run.code, 124, run.stderr);
    assert.equal(run.stdout, 'cancelled: timeout');
  });

  test('select with an index out of range is refused, naming the field', async () => {
    const dir = await env.writePlugin('bad-select', {
      'plugin.toml': '[plugin]\nname = "fledge-bad-select"\nversion = "1.0.0"\nprotocol = "fledge-v1"\n\n[[commands]]\nname = "bad-select"\nbinary = "ask.py"\n',
      'ask.py': `#!/usr/bin/env python3
import json, sys
sys.stdin.readline()
print(json.dumps({"type": "select", "id": "1", "message": "?", "options": ["a"], "default": 4}), flush=True)
reply = json.loads(sys.stdin.readline())
print(json.dumps({"type": "output", "text": reply["error"]["message"]}), flush=True)
`,
    });
    assert.equal((await env.run(['plugins', 'install', dir, '--yes'], repo.work)).code, 0);
    const run = await env.run(['bad-select'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'select.default must be the index of an option (0-0)');
  });

  test('a wasm plugin is refused with a clear error, and nothing is installed', async () => {
    const dir = await env.writePlugin('wasm', {
      'plugin.toml': '[plugin]\nname = "fledge-my-lint"\nversion = "0.1.0"\nprotocol = "fledge-v1"\nruntime = "wasm"\n\n[[commands]]\nname = "my-lint"\nbinary = "lint.wasm"\n',
      'lint.wasm': '\0asm',
    });
    const run = await env.run(['plugins', 'install', dir, '--yes', '--json'], repo.work);
    assert.equal(run.code, 1);
    assertSchema('error', run.json);
    assert.equal(run.json.error.message, 'plugin fledge-my-lint needs the "wasm" runtime; roost runs native plugins only (runtime = "native", or no runtime line)');
    const list = await env.run(['plugins', 'list', '--json'], repo.work);
    assert.ok(!list.json.plugins.some((p: { name: string }) => p.name === 'fledge-my-lint'));
  });

  test('a Rust fledge-v1 plugin', async (t) => {
    const reason = cargoMissing();
    if (reason) return t.skip(reason);
    const dir = await env.writePlugin('rust', {
      'plugin.toml': '[plugin]\nname = "fledge-hello-rust"\nversion = "0.1.0"\nauthor = "Test Author"\nprotocol = "fledge-v1"\n\n[[commands]]\nname = "hello-rust"\nbinary = "target/release/fledge-hello-rust"\n\n[hooks]\nbuild = "cargo build --release --offline --quiet"\n',
      'Cargo.toml': '[package]\nname = "fledge-hello-rust"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
      // No serde: the protocol is simple enough to speak with the standard library.
      'src/main.rs': `use std::io::{self, BufRead, Write};
fn main() {
    let stdin = io::stdin();
    let mut lines = stdin.lock().lines();
    let init = lines.next().unwrap().unwrap();
    let mut out = io::stdout();
    let has_fledge = init.contains("\\"fledge\\":{\\"version\\"");
    writeln!(out, "{{\\"type\\":\\"prompt\\",\\"id\\":\\"1\\",\\"message\\":\\"Name?\\",\\"default\\":\\"ferris\\"}}").unwrap();
    out.flush().unwrap();
    let reply = lines.next().unwrap().unwrap();
    let name = if reply.contains("ferris") { "ferris" } else { "?" };
    writeln!(out, "{{\\"type\\":\\"output\\",\\"text\\":\\"hello {} fledge={}\\\\n\\"}}", name, has_fledge).unwrap();
}
`,
    });
    const install = await env.run(['plugins', 'install', dir, '--yes'], repo.work);
    assert.equal(install.code, 0, install.stderr);
    const run = await env.run(['hello-rust', '--non-interactive'], repo.work);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'hello ferris fledge=true');
  });
});

/** Why no Rust plugin can be built here (the test plugin has no dependencies, so cargo builds it offline). */
function cargoMissing(): string | undefined {
  try {
    execFileSync('cargo', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'cargo is not installed';
  }
  return undefined;
}
