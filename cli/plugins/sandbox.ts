// The operating-system box a CLI plugin runs in: the server's bubblewrap sandbox (kernel/host/sandbox.ts)
// with what approval showed. It reads what its user can (tools, the project, files named in its
// environment) except $ROOST_HOME (the registry, other plugins' data) and well-known credential
// files; it writes only its own folder ($ROOST_HOME/plugin-data/<name>/, its TMPDIR), and the project
// too with `filesystem` (scope "project"); it reaches the network only with `network`. `exec` commands run outside it, as the person: granting exec is
// granting that. Without a working bubblewrap the plugin runs unsandboxed, after a warning when a
// grant it lacks goes unenforced.
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SANDBOX_LIMITS, sandboxArgv } from '../../kernel/host/sandbox.js';
import type { SandboxTools } from '../../kernel/host/sandbox-tools.js';
import { packageRoot } from '../../protocol/paths.js';
import { pluginDataFile } from './home.js';
import { sandboxTools } from './sandbox-probe.js';
import type { RegistryEntry } from './registry.js';

let tools: SandboxTools | undefined;

/** Under the user's home: what holds keys and tokens for other tools. */
const CREDENTIALS = ['.ssh', '.gnupg', '.aws', '.azure', '.config/gcloud', '.kube', '.docker', '.config/gh', '.netrc', '.git-credentials', '.npmrc', '.pypirc', '.cargo/credentials', '.cargo/credentials.toml'];

export interface PluginBox {
  /** argv prefix that starts the plugin inside the sandbox; undefined when it runs unsandboxed. */
  wrapper?: string[];
  env: Record<string, string | undefined>;
}

export async function pluginBox(entry: RegistryEntry, home: string, root: string, cwd: string, env: Record<string, string | undefined>, log: (line: string) => void): Promise<PluginBox> {
  tools ??= await sandboxTools(home, process.env.ROOST_BWRAP || 'bwrap');
  const grants = new Set(entry.capabilities);
  if ('missing' in tools) {
    const unenforced = ['network', 'filesystem'].filter((c) => !grants.has(c));
    if (unenforced.length > 0) log(`roost: warning: ${entry.name} runs without a sandbox (${tools.missing}): ${unenforced.join(' and ')} not enforced`);
    return { env };
  }
  const ownDir = pluginDataFile(home, entry.name).replace(/\.json$/, '');
  await mkdir(join(ownDir, 'tmp'), { recursive: true });
  const boxed = { ...env, TMPDIR: join(ownDir, 'tmp') };
  const wrapper = sandboxArgv({
    ...tools,
    grants,
    packageRoot,
    codeDir: entry.dir,
    ownDir,
    serverDataDir: home,
    readableRoots: ['/'],
    hostTmp: true, // projects and the files a plugin is pointed at often live there
    hiddenPaths: CREDENTIALS.map((path) => join(homedir(), path)),
    allowedRoots: (entry.filesystemScope ?? 'project') === 'project' ? [root] : [],
    env: boxed,
    limits: DEFAULT_SANDBOX_LIMITS,
  }, cwd);
  return { wrapper, env: boxed };
}
