// What approval shows is what a CLI plugin gets, enforced by the same bubblewrap sandbox as server
// extensions: without `network` it reaches no network (not even loopback), without `filesystem` it
// cannot write into the project, and it never sees the rest of $ROOST_HOME. Plain plugins in bash and
// Python probe it from inside.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findSandboxTools } from '../../kernel/host/sandbox-tools.js';
import { tempGitRepo } from '../helpers/cli.js';
import { pluginHome, type PluginHome } from './plugins-env.js';

const PROBE = `#!/usr/bin/env python3
import os, socket, sys
port, name, registry = int(sys.argv[1]), sys.argv[2], sys.argv[3]
try:
    socket.create_connection(("127.0.0.1", port), timeout=5).close()
    print("network: yes")
except OSError:
    print("network: no")
try:
    with open(name, "w") as f:
        f.write("x")
    print("write: yes")
except OSError:
    print("write: no")
print("registry: " + ("visible" if os.path.exists(registry) else "hidden"))
`;

const tools = findSandboxTools(process.env.ROOST_BWRAP || 'bwrap');

describe('CLI plugins run in the sandbox their grants describe', { skip: 'missing' in tools ? `no usable bubblewrap: ${tools.missing}` : false }, () => {
  let env: PluginHome;
  let repo: Awaited<ReturnType<typeof tempGitRepo>>;
  let server: Server;
  let port: number;

  before(async () => {
    env = await pluginHome();
    repo = await tempGitRepo();
    server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    for (const [name, capabilities] of [['boxed', ''], ['online', 'network = true\n'], ['writer', 'filesystem = "project"\n']]) {
      await env.installFiles(name!, {
        'plugin.toml': `[plugin]\nname = "${name}"\nversion = "1.0.0"\n\n[capabilities]\n${capabilities}\n[[commands]]\nname = "${name}"\nbinary = "probe.py"\n`,
        'probe.py': PROBE,
      });
    }
  });
  after(async () => {
    server.close();
    await repo.cleanup();
    await env.cleanup();
  });

  const probe = async (name: string) => {
    const run = await env.run([name, String(port), `${name}.txt`, join(env.home, 'plugins', 'registry.json')], repo.work);
    assert.equal(run.code, 0, run.stderr);
    return run.stdout;
  };

  test('granted nothing: no network, no writes to the project, no view of ROOST_HOME', async () => {
    assert.equal(await probe('boxed'), 'network: no\nwrite: no\nregistry: hidden');
    assert.equal(existsSync(join(repo.work, 'boxed.txt')), false);
  });

  test('network granted: it connects', async () => {
    assert.equal(await probe('online'), 'network: yes\nwrite: no\nregistry: hidden');
  });

  test('filesystem = "project": it writes into the project', async () => {
    assert.equal(await probe('writer'), 'network: no\nwrite: yes\nregistry: hidden');
    assert.equal(existsSync(join(repo.work, 'writer.txt')), true);
  });
});
