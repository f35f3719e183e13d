// How the server starts an extension's processes: its environment, its node flags and its sandbox.
// Without a working bubblewrap (or off Linux) in-tree extensions still start, after one warning;
// extensions from anywhere else are refused unless ROOST_ALLOW_UNSANDBOXED=1 says otherwise. Each
// start also gets its guard (process limit, disk budget: extension-guard.ts), and one over its disk
// budget is not started at all (507) until its folder is back under it.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RoostError } from '../../protocol/errors.js';
import { packageRoot } from '../../lib/paths.js';
import { isBundled } from './extension-sources.js';
import type { ServerConfig } from '../config.js';
import { extensionFolder, tenantWorkspaces } from '../storage/provision.js';
import type { Manifest } from './manifest.js';
import { diskUsageBytes } from './disk-usage.js';
import { ExtensionGuard, overBudget } from './extension-guard.js';
import { EXTENSION_MALLOC_ENV, extensionHeapFlags } from './heap-flags.js';
import { permissionFlags } from './permissions.js';
import { PidsCgroups, type PidsCgroup } from './pids-cgroup.js';
import { sandboxArgv, type SandboxSpec } from './sandbox.js';
import { findSandboxTools, type SandboxTools } from './sandbox-tools.js';

export interface Launch {
  env: Record<string, string | undefined>;
  nodeFlags: string[];
  /** argv prefix that starts the entry inside the sandbox; undefined when it runs unsandboxed. */
  wrapper?: string[];
  /** Watches the started process: its process limit and disk budget. */
  guard?: ExtensionGuard;
}

/** An extension's disk budget when neither ROOST_EXTENSION_DISK_MB nor its manifest's disk_mb sets one. */
export const DEFAULT_EXTENSION_DISK_MB = 1024;
/** bubblewrap's own processes in a sandbox: its outer process and the namespace's init. */
const BWRAP_PROCESSES = 2;
const MiB = 1024 * 1024;

type Log = (level: string, message: string) => void;

export class ExtensionLauncher {
  private tools: SandboxTools | undefined;
  private warned = false;
  /** undefined until looked for; null where the machine gives no pids cgroup. */
  private cgroups: PidsCgroups | null | undefined;
  /** Each extension's pids cgroup, which its `exec`s join too. */
  private readonly groups = new Map<string, PidsCgroup>();
  /** The guard of each extension's latest start. */
  private readonly guards = new Map<string, ExtensionGuard>();

  /** `baseEnv`: what every extension inherits (never the server's keys). */
  constructor(private readonly config: ServerConfig, private readonly baseEnv: Record<string, string | undefined>, private readonly log: Log) {}

  /** Throws (at load, before anything runs) when this extension may not run on this machine. */
  check(manifest: Manifest): void {
    const tools = this.sandboxTools();
    if (!('missing' in tools) || isBundled(manifest) || this.config.allowUnsandboxed) return;
    throw new RoostError('EXTENSION_UNAVAILABLE',
      `extension ${manifest.name} cannot be sandboxed (${tools.missing}); install the Debian package "bubblewrap", or set ROOST_ALLOW_UNSANDBOXED=1 to run extensions from outside the server's own tree unsandboxed`,
      { status: 409 });
  }

  /** Throws 507 while the extension's folder is over its disk budget. */
  async launch(manifest: Manifest, grants: ReadonlySet<string>): Promise<Launch> {
    const name = manifest.name;
    const diskBytes = this.diskBudgetMb(manifest) * MiB;
    const ownDir = await extensionFolder(this.config, name);
    const used = await diskUsageBytes(ownDir);
    if (used > diskBytes) throw new RoostError('STORAGE_FULL', `extension ${name}: ${overBudget({ diskBytes, ownDir }, used)}`);
    const { processes } = this.config.sandboxLimits;
    const cgroups = !('missing' in this.sandboxTools()) ? this.pidsCgroups() : undefined;
    if (cgroups) this.groups.set(name, cgroups.create(name, processes));
    const { env, spec } = await this.prepare(manifest, grants);
    const heap = extensionHeapFlags(this.config.sandboxLimits.memoryMb);
    const guard = new ExtensionGuard({ name, processes, diskBytes, ownDir, cgroup: cgroups ? this.groups.get(name) : undefined, overhead: spec ? BWRAP_PROCESSES : 0 }, this.log);
    this.guards.set(name, guard);
    const profile = benchProfileFlags(ownDir);
    return { env, nodeFlags: [...(profile.length > 0 ? profile : permissionFlags(grants, [ownDir])), ...heap], guard, ...(spec ? { wrapper: sandboxArgv(spec, manifest.dir) } : {}) };
  }

  /** ROOST_EXTENSION_DISK_MB for every extension, else its manifest's disk_mb, else the default. */
  diskBudgetMb(manifest: Manifest): number {
    return this.config.extensionDiskMb ?? manifest.server?.diskMb ?? DEFAULT_EXTENSION_DISK_MB;
  }

  /** Each extension's disk budget, and its folder's usage as its guard last measured it. */
  diskFigures(): Array<{ extension: string; budget: number; used: number | undefined }> {
    return [...this.guards].map(([extension, guard]) => ({ extension, budget: guard.diskBytes, used: guard.usedBytes }));
  }

  /** Removes this server's cgroups (after every extension has stopped). */
  close(): void {
    this.cgroups?.close();
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
    const env = { ...this.baseEnv, ...EXTENSION_MALLOC_ENV, HOME: ownDir, TMPDIR: join(ownDir, 'tmp') };
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
      cgroupProcs: this.groups.get(manifest.name)?.procsFile,
      // Its own folder the only writable place: no file of it may outgrow the budget.
      ...(grants.has('filesystem') ? {} : { maxFileBytes: this.diskBudgetMb(manifest) * MiB }),
    };
  }

  private pidsCgroups(): PidsCgroups | undefined {
    if (this.cgroups === undefined && !this.config.pidsCgroup) this.log('info', "extensions' process limit is kept by counting (ROOST_PIDS_CGROUP=off)");
    if (this.cgroups === undefined) this.cgroups = (this.config.pidsCgroup && PidsCgroups.find(this.log)) || null;
    return this.cgroups ?? undefined;
  }

  /** Found and tried once. */
  private sandboxTools(): SandboxTools {
    return (this.tools ??= findSandboxTools(this.config.bwrap));
  }
}

/**
 * For profiling only (docs/performance.md): ROOST_BENCH_EXTENSION_CPU_PROF=1 has each extension write a
 * V8 CPU profile into its own data folder (`cpu-prof/`, the one folder its sandbox lets it write) when
 * it exits. Node's permission model refuses the profiler any file, so in this mode the extension runs
 * without Node's permission flags, still inside its bubblewrap sandbox; never use it for figures or in
 * production. Off unless set.
 */
function benchProfileFlags(ownDir: string): string[] {
  return process.env.ROOST_BENCH_EXTENSION_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${join(ownDir, 'cpu-prof')}`] : [];
}
