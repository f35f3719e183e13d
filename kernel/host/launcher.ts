// How the server starts an extension's processes: its environment, its node flags and its sandbox.
// Without a working bubblewrap (or off Linux) in-tree extensions still start, after one warning;
// extensions from anywhere else are refused unless ROOST_ALLOW_UNSANDBOXED=1 says otherwise.
import { mkdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { packageRoot } from '../../protocol/paths.js';
import type { ServerConfig } from '../config.js';
import { extensionFolder, tenantWorkspaces } from '../storage/provision.js';
import type { Manifest } from './manifest.js';
import { permissionFlags } from './permissions.js';
import { sandboxArgv, type SandboxSpec } from './sandbox.js';
import { findSandboxTools, type SandboxTools } from './sandbox-tools.js';

export interface Launch {
  env: Record<string, string | undefined>;
  nodeFlags: string[];
  /** argv prefix that starts the entry inside the sandbox; undefined when it runs unsandboxed. */
  wrapper?: string[];
}

type Log = (level: string, message: string) => void;

export class ExtensionLauncher {
  private tools: SandboxTools | undefined;
  private warned = false;

  /** `baseEnv`: what every extension inherits (never the server's keys). */
  constructor(private readonly config: ServerConfig, private readonly baseEnv: Record<string, string | undefined>, private readonly log: Log) {}

  /** Throws (at load, before anything runs) when this extension may not run on this machine. */
  check(manifest: Manifest): void {
    const tools = this.sandboxTools();
    if (!('missing' in tools) || this.inTree(manifest) || this.config.allowUnsandboxed) return;
    throw new RoostError('EXTENSION_UNAVAILABLE',
      `extension ${manifest.name} cannot be sandboxed (${tools.missing}); install the Debian package "bubblewrap", or set ROOST_ALLOW_UNSANDBOXED=1 to run extensions from outside the server's own tree unsandboxed`,
      { status: 409 });
  }

  async launch(manifest: Manifest, grants: ReadonlySet<string>): Promise<Launch> {
    const { ownDir, env, spec } = await this.prepare(manifest, grants);
    const heap = `--max-old-space-size=${Math.max(64, Math.floor(this.config.sandboxLimits.memoryMb / 2))}`;
    return { env, nodeFlags: [...permissionFlags(grants, [ownDir]), heap], ...(spec ? { wrapper: sandboxArgv(spec, manifest.dir) } : {}) };
  }

  /** How to run an `exec` the extension asked for: in the same sandbox as the extension itself. */
  async execLaunch(manifest: Manifest, grants: ReadonlySet<string>, cwd: string): Promise<Omit<Launch, 'nodeFlags'>> {
    const { env, spec } = await this.prepare(manifest, grants);
    return { env, ...(spec ? { wrapper: sandboxArgv(spec, cwd) } : {}) };
  }

  private async prepare(manifest: Manifest, grants: ReadonlySet<string>) {
    this.check(manifest);
    const ownDir = await extensionFolder(this.config, manifest.name);
    const workspaces = tenantWorkspaces(this.config);
    if (workspaces) await mkdir(workspaces, { recursive: true });
    const env = { ...this.baseEnv, HOME: ownDir, TMPDIR: join(ownDir, 'tmp') };
    return { ownDir, env, spec: this.spec(manifest, grants, ownDir, env) };
  }

  private spec(manifest: Manifest, grants: ReadonlySet<string>, ownDir: string, env: Record<string, string | undefined>): SandboxSpec | undefined {
    const tools = this.sandboxTools();
    if ('missing' in tools) {
      if (!this.warned) this.log('warn', `extensions run WITHOUT an operating-system sandbox: ${tools.missing}. Install the Debian package "bubblewrap" (apt-get install bubblewrap)`);
      this.warned = true;
      return undefined;
    }
    return {
      ...tools, grants, packageRoot, codeDir: manifest.dir, ownDir, env,
      serverDataDir: this.config.dataDir,
      allowedRoots: this.config.allowedRoots,
      tenantWorkspaces: tenantWorkspaces(this.config),
      limits: this.config.sandboxLimits,
    };
  }

  private inTree(manifest: Manifest): boolean {
    return manifest.dir.startsWith(join(packageRoot, 'extensions') + sep);
  }

  /** Found and tried once. */
  private sandboxTools(): SandboxTools {
    return (this.tools ??= findSandboxTools(this.config.bwrap));
  }
}
