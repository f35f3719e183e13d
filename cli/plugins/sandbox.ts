// The operating-system box a CLI plugin runs in: the server's bubblewrap sandbox (kernel/host/sandbox.ts)
// with what approval showed, and nothing else of the machine. It sees the runtime (/usr, /lib…, the
// /etc files programs need), the toolchains (toolchains.ts), the project (read-only; read-write with
// `filesystem`, scope "project"), its own folder ($ROOST_HOME/plugin-data/<name>/, its TMPDIR, the one
// other place it writes), the files and Unix sockets its [sandbox] grants name, a private /tmp and an
// empty, private home folder. Not the rest of the home folder (dotfiles, credentials, a server's data
// dir), not $ROOST_HOME, not /run's sockets; it reaches the network only with `network`. `exec`
// commands run outside it, as the person: granting exec is granting that. Without a working bubblewrap
// the plugin runs unsandboxed (with the same environment), after a warning naming what goes unenforced.
import { statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readOr } from '../../lib/proc.js';
import { DEFAULT_SANDBOX_LIMITS, sandboxArgv } from '../../kernel/host/sandbox.js';
import type { SandboxTools } from '../../kernel/host/sandbox-tools.js';
import { existing } from '../../lib/bwrap.js';
import { packageRoot } from '../../lib/paths.js';
import { pluginDataFile } from './home.js';
import { sandboxTools } from './sandbox-probe.js';
import { shadowsPrivate, toolchainDirs } from './toolchains.js';
import type { RegistryEntry } from './registry.js';

let tools: SandboxTools | undefined;

/** /etc beyond the runtime's (lib/bwrap.ts): git's system configuration. */
const EXTRA_ETC = ['/etc/gitconfig'];

export interface PluginBox {
  /** argv prefix that starts the plugin inside the sandbox; undefined when it runs unsandboxed. */
  wrapper?: string[];
  env: Record<string, string | undefined>;
}

/** `env` is already the plugin's allow-listed environment (plugin-env.ts). */
export async function pluginBox(entry: RegistryEntry, home: string, root: string, cwd: string, env: Record<string, string>, log: (line: string) => void): Promise<PluginBox> {
  tools ??= await sandboxTools(home, process.env.ROOST_BWRAP || 'bwrap');
  const grants = new Set(entry.capabilities);
  if ('missing' in tools) {
    const unenforced = ['network', 'filesystem'].filter((c) => !grants.has(c));
    if (unenforced.length > 0) log(`roost: warning: ${entry.name} runs without a sandbox (${tools.missing}): ${unenforced.join(' and ')} not enforced, and it reads what you can`);
    return { env };
  }
  const ownDir = pluginDataFile(home, entry.name).replace(/\.json$/, '');
  await mkdir(join(ownDir, 'tmp'), { recursive: true });
  const boxed = { ...env, TMPDIR: join(ownDir, 'tmp') };
  const userHome = existing([homedir()])[0] ?? resolve(homedir());
  const [project] = existing([root]);
  const showProject = project !== undefined && !shadowsPrivate(project, userHome);
  if (!showProject) log(`roost: ${root} is not shown to ${entry.name}: a plugin never sees the whole home folder, / or /tmp`);
  const extraMounts = [
    ...EXTRA_ETC.flatMap((file) => ['--ro-bind-try', file, file]),
    // An empty home of its own (writable, gone after the run), under the toolchains it may run.
    ...(userHome === '/' ? [] : ['--tmpfs', userHome]),
    ...toolchainDirs(process.env, userHome).flatMap((dir) => ['--ro-bind', dir, dir]),
    ...(showProject ? ['--ro-bind', project, project] : []),
    ...grantedFiles(entry, env),
    ...grantedSockets(entry, log),
  ];
  const wrapper = sandboxArgv({
    ...tools,
    grants,
    packageRoot,
    codeDir: entry.dir,
    ownDir,
    serverDataDir: home,
    extraMounts,
    // A server's data dir named in the environment stays hidden even inside the project.
    hiddenPaths: process.env.ROOST_DATA_DIR ? [process.env.ROOST_DATA_DIR] : [],
    allowedRoots: showProject && (entry.filesystemScope ?? 'project') === 'project' ? [project] : [],
    env: boxed,
    limits: DEFAULT_SANDBOX_LIMITS,
  }, showProject ? cwd : '/');
  return { wrapper, env: boxed };
}

/** A granted variable's value, when it names an existing file (a path or file: URL): that file, read-only, where it names it. */
function grantedFiles(entry: RegistryEntry, env: Record<string, string>): string[] {
  return (entry.sandbox?.envFiles ?? []).flatMap((name) => {
    const value = env[name] ?? '';
    const path = value.startsWith('file:') ? readOr(() => fileURLToPath(value), '') : value;
    if (!isAbsolute(path) || !statSync(path, { throwIfNoEntry: false })?.isFile()) return [];
    return ['--ro-bind', existing([path])[0]!, resolve(path)];
  });
}

/** A granted socket is shared where the manifest names it, when it is a socket (never another kind of file). */
function grantedSockets(entry: RegistryEntry, log: (line: string) => void): string[] {
  return (entry.sandbox?.sockets ?? []).flatMap((path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return [];
    if (!stat.isSocket()) {
      log(`roost: ${path} is not a Unix socket; ${entry.name} does not get it`);
      return [];
    }
    return ['--ro-bind', existing([path])[0]!, path];
  });
}
