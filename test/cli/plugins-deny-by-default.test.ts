// A CLI plugin with no grants gets nothing of the machine beyond the project (read-only), its own
// folder and the tools it runs: a Python plugin tries each leak an adversarial run found — API keys in
// its environment, a server's data dir (in the home folder, elsewhere, or in the project named by
// ROOST_DATA_DIR), the home folder's credentials and history, host Unix sockets
// (a listening one under /run, a PostgreSQL-like one outside the project, the SSH agent's) — and gets
// none. What a manifest declares and the install grants does pass: a variable, a file a variable
// names, a socket, and the project read-write with `filesystem`. The home folder is a fake one.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findSandboxTools } from '../../kernel/host/sandbox-tools.js';
import { tempDir, tempGitRepo } from '../helpers/cli.js';
import { assertSchema } from './json-schema.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

// argv: a list of "label=path" to read, "sock:label=path" to connect to, "env:NAME", "write:label=path", "run:cmd".
const PROBE = `#!/usr/bin/env python3
import os, socket, subprocess, sys
for arg in sys.argv[1:]:
    kind, _, rest = arg.partition(":")
    label, _, path = rest.partition("=")
    try:
        if kind == "env":
            ok = label in os.environ
        elif kind == "read":
            with open(path) as f:
                ok = f.read() != ""
        elif kind == "write":
            with open(path, "w") as f:
                f.write("written by the plugin")
            ok = True
        elif kind == "sock":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect(path)
            ok = s.recv(16) == b"hello"
            s.close()
        elif kind == "run":
            ok = subprocess.run([path], capture_output=True, timeout=30).stdout == b"tool ran\\n"
    except Exception:
        ok = False
    print(label + ": " + ("yes" if ok else "no"))
`;

const tools = findSandboxTools(process.env.ROOST_BWRAP || 'bwrap');

describe('CLI plugins: deny by default', { skip: 'missing' in tools ? `no usable bubblewrap: ${tools.missing}` : false }, () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  let outside: { dir: string; cleanup: () => Promise<void> };
  let home: string;
  let runDir: string | undefined;
  const servers: Server[] = [];
  const sockets: Record<string, string> = {};
  let hostEnv: Record<string, string>;

  const listen = async (path: string) => {
    const server = createServer((socket) => socket.end('hello'));
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
    servers.push(server);
  };

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo({ 'README.md': '# project\n' });
    outside = await tempDir('roost-deny-');
    home = join(outside.dir, 'home');
    const secrets: Record<string, string> = {
      '.pgpass': 'localhost:5432:*:postgres:hunter2\n',
      '.claude/.credentials.json': '{"claudeAiOauth":{"accessToken":"sk-ant-oat01-x"}}',
      '.bash_history': 'export ANTHROPIC_API_KEY=sk-ant-api03-x\n',
      '.env': 'ROOST_API_KEY=rk_x\n',
      '.config/x/token': 'secret\n',
      '.cargo/credentials.toml': '[registry]\ntoken = "cio_x"\n',
      '.roost/data/sealing.key': 'a'.repeat(64),
      '.roost/data/audit.key': 'b'.repeat(64),
      '.roost/data/kernel.sqlite': 'SQLite format 3\0',
      '.local/bin/roost-test-tool': '#!/bin/sh\necho tool ran\n',
    };
    for (const [path, content] of Object.entries(secrets)) {
      await mkdir(join(home, path, '..'), { recursive: true });
      await writeFile(join(home, path), content);
    }
    await chmod(join(home, '.local/bin/roost-test-tool'), 0o755);
    // A server data dir elsewhere (as /var/lib/roost would be), and a file the person names in a variable.
    await mkdir(join(outside.dir, 'srv/data'), { recursive: true });
    await writeFile(join(outside.dir, 'srv/data/sealing.key'), 'c'.repeat(64));
    await writeFile(join(outside.dir, 'named.json'), '{"named": true}');
    // A server data dir inside the project, named by ROOST_DATA_DIR.
    await mkdir(join(repo.work, 'server-data'));
    await writeFile(join(repo.work, 'server-data', 'audit.key'), 'd'.repeat(64));

    // Listening sockets: a PostgreSQL-like one outside the project, an SSH agent's, and one under /run (root only).
    await mkdir(join(outside.dir, 'pg'));
    sockets.pg = join(outside.dir, 'pg', '.s.PGSQL.5432');
    sockets.agent = join(outside.dir, 'agent.sock');
    const run = join('/run', `roost-deny-${process.pid}`);
    if (await mkdir(run).then(() => true, () => false)) {
      runDir = run;
      sockets.run = join(run, 'system_bus_socket');
    }
    for (const path of Object.values(sockets)) await listen(path);

    hostEnv = {
      HOME: home,
      // The system's python3, not a version manager's shim from the real home folder.
      PATH: `${join(home, '.local/bin')}:/usr/local/bin:/usr/bin:/bin`,
      ANTHROPIC_API_KEY: 'sk-ant-api03-leak',
      ROOST_API_KEY: 'rk_leak',
      SSH_AUTH_SOCK: sockets.agent!,
      DATABASE_URL: 'postgres://postgres:hunter2@localhost/roost',
      ROOST_TEST_TOKEN: 'granted-token',
      ROOST_TEST_FILE: join(outside.dir, 'named.json'),
      ROOST_DATA_DIR: join(repo.work, 'server-data'),
    };
    const plugin = (name: string, extra: string) => ({
      'plugin.toml': `[plugin]\nname = "${name}"\nversion = "1.0.0"\n${extra}\n[[commands]]\nname = "${name}"\nbinary = "probe.py"\n`,
      'probe.py': PROBE,
    });
    await env.installFiles('nosy', plugin('nosy', ''));
    const granted = `\n[capabilities]\nfilesystem = "project"\n\n[sandbox]\nenv = ["ROOST_TEST_TOKEN"]\nenv_files = ["ROOST_TEST_FILE"]\nsockets = [${JSON.stringify(sockets.pg)}]\n`;
    const install = await env.installFiles('granted', plugin('granted', granted));
    assert.match(install.stderr, /environment variables: ROOST_TEST_TOKEN/);
    assert.match(install.stderr, /files named by the variables: ROOST_TEST_FILE/);
    assert.match(install.stderr, new RegExp(`unix sockets: ${sockets.pg!.replace(/[.$]/g, '\\$&')}`));
  });
  after(async () => {
    for (const server of servers) server.close();
    if (runDir) await rm(runDir, { recursive: true, force: true });
    await outside.cleanup();
    await repo.cleanup();
    await env.cleanup();
  });

  const probe = async (name: string, checks: string[]) => {
    const run = await env.run([name, ...checks], repo.work, hostEnv);
    assert.equal(run.code, 0, run.stderr);
    return Object.fromEntries(run.stdout.split('\n').map((line) => line.split(': ') as [string, string]));
  };

  const LEAKS = () => [
    'env:ANTHROPIC_API_KEY', 'env:ROOST_API_KEY', 'env:SSH_AUTH_SOCK', 'env:DATABASE_URL', 'env:ROOST_TEST_TOKEN',
    ...['.pgpass', '.claude/.credentials.json', '.bash_history', '.env', '.config/x/token', '.cargo/credentials.toml',
      '.roost/data/sealing.key', '.roost/data/audit.key', '.roost/data/kernel.sqlite'].map((path) => `read:~/${path}=${join(home, path)}`),
    `read:srv/data/sealing.key=${join(outside.dir, 'srv/data/sealing.key')}`,
    `read:project/server-data/audit.key=${join(repo.work, 'server-data', 'audit.key')}`,
    `read:named.json=${join(outside.dir, 'named.json')}`,
    ...Object.entries(sockets).map(([label, path]) => `sock:${label}=${path}`),
  ];

  test('granted nothing: no secret variable, no file of the home folder or a data dir, no host socket', async () => {
    const seen = await probe('nosy', [...LEAKS(), `read:project=${join(repo.work, 'README.md')}`, `write:project-write=${join(repo.work, 'nosy.txt')}`, 'run:toolchain=roost-test-tool', 'env:HOME', 'env:PATH']);
    const leaked = Object.entries(seen).filter(([label, answer]) => answer === 'yes' && !['project', 'toolchain', 'HOME', 'PATH'].includes(label));
    assert.deepEqual(leaked, [], `the plugin reached ${leaked.map(([label]) => label).join(', ')}`);
    // It reads the project and runs the tools on PATH, but writes nothing into the project.
    assert.deepEqual([seen.project, seen.toolchain, seen['project-write'], seen.HOME, seen.PATH], ['yes', 'yes', 'no', 'yes', 'yes']);
    assert.equal(existsSync(join(repo.work, 'nosy.txt')), false);
  });

  test('its home folder is empty and private: what it writes there is gone after the run', async () => {
    const seen = await probe('nosy', [`write:home-write=${join(home, 'dropped.txt')}`, `read:history=${join(home, '.bash_history')}`]);
    assert.deepEqual(seen, { 'home-write': 'yes', history: 'no' });
    assert.equal(existsSync(join(home, 'dropped.txt')), false);
  });

  test('what was declared and granted passes: the variable, the file it names, the socket, the project read-write', async () => {
    const seen = await probe('granted', [...LEAKS(), `write:project-write=${join(repo.work, 'granted.txt')}`]);
    const passed = Object.entries(seen).filter(([, answer]) => answer === 'yes').map(([label]) => label);
    assert.deepEqual(passed.sort(), ['ROOST_TEST_TOKEN', 'named.json', 'pg', 'project-write']);
    assert.equal(existsSync(join(repo.work, 'granted.txt')), true);
  });

  test('plugins list shows what was granted', async () => {
    const list = await env.run(['plugins', 'list', '--json'], repo.work);
    const entry = assertSchema('plugins-list', list.json).plugins.find((p: { name: string }) => p.name === 'granted');
    assert.deepEqual(entry.sandbox, { env: ['ROOST_TEST_TOKEN'], envFiles: ['ROOST_TEST_FILE'], sockets: [sockets.pg] });
    const text = await env.run(['plugins', 'list'], repo.work);
    assert.match(text.stdout, new RegExp(`sandbox: \\$ROOST_TEST_TOKEN, \\$ROOST_TEST_FILE, ${sockets.pg!.replace(/[.$]/g, '\\$&')}`));
  });
});

describe('CLI plugins without bubblewrap: the same environment allow-list', () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo();
    await env.installFiles('bare', {
      'plugin.toml': '[plugin]\nname = "bare"\nversion = "1.0.0"\n\n[sandbox]\nenv = ["ROOST_TEST_TOKEN"]\n\n[[commands]]\nname = "bare"\nbinary = "env.sh"\n',
      'env.sh': '#!/bin/sh\nfor v in ANTHROPIC_API_KEY ROOST_API_KEY SSH_AUTH_SOCK ROOST_TEST_TOKEN ROOST_PLUGIN; do eval "echo $v: \\${$v:-unset}"; done\n',
    });
  });
  after(async () => {
    await repo.cleanup();
    await env.cleanup();
  });

  test('unsandboxed, it still gets only the basics, the protocol and its granted variables, after a warning', async () => {
    const run = await env.run(['bare'], repo.work, { ROOST_BWRAP: '/nonexistent/bwrap', ANTHROPIC_API_KEY: 'sk-ant-leak', ROOST_API_KEY: 'rk_leak', SSH_AUTH_SOCK: '/tmp/agent.sock', ROOST_TEST_TOKEN: 'granted' });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'ANTHROPIC_API_KEY: unset\nROOST_API_KEY: unset\nSSH_AUTH_SOCK: unset\nROOST_TEST_TOKEN: granted\nROOST_PLUGIN: bare');
    assert.match(run.stderr, /bare runs without a sandbox .*: network and filesystem not enforced/);
  });
});
