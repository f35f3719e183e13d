// The operating-system box every extension runs in on Linux: the argv that starts a command under
// prlimit (resource limits) and bubblewrap (namespaces). Inside, the process sees a read-only runtime
// and code, a private /tmp, its own data folder as the only writable place, no other process, no
// network unless granted, no capabilities, and only the environment given here.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { sep } from 'node:path';
import { environmentArgs, existing, runtimeMounts, within } from '../../lib/bwrap.js';
import { childrenOf } from '../../lib/proc.js';

export interface SandboxLimits {
  /** RLIMIT_DATA per process, in MiB (private writable memory; unlike RLIMIT_AS it leaves V8's reservations alone). */
  memoryMb: number;
  /** RLIMIT_NOFILE per process. */
  openFiles: number;
  /** RLIMIT_NPROC: processes of the sandbox's user (not enforced by Linux when the server runs as root:
   * there the extension's pids cgroup and its guard hold the limit, kernel/host/extension-guard.ts). */
  processes: number;
}

export interface SandboxSpec {
  /** Path of the bwrap binary and of prlimit. */
  bwrap: string;
  prlimit: string;
  grants: ReadonlySet<string>;
  /** The package root (code, dist, node_modules): read-only. */
  packageRoot: string;
  /** The extension's own folder: read-only. */
  codeDir: string;
  /** The extension's data folder: the one writable place. */
  ownDir: string;
  /** The server's data dir: hidden even when an allowed root contains it. */
  serverDataDir: string;
  /** Bound read-write with the `filesystem` grant. */
  allowedRoots: string[];
  /** The tenants' own project folders (inside the server's data dir): bound read-write with `filesystem`. */
  tenantWorkspaces?: string;
  /**
   * bwrap mount arguments of the caller's own, after the runtime and the private /tmp and before the
   * allowed roots (a CLI plugin's home folder, toolchains, project and sockets: cli/plugins/sandbox.ts).
   */
  extraMounts?: string[];
  /** Covered by an empty folder (or, for a file, /dev/null), even inside an allowed root. */
  hiddenPaths?: string[];
  /** The complete environment of the sandboxed process. */
  env: Record<string, string | undefined>;
  limits: SandboxLimits;
  /** The `cgroup.procs` of the extension's pids cgroup: the sandbox joins it before it starts. */
  cgroupProcs?: string;
  /** RLIMIT_FSIZE: no file it writes may grow past this (its disk budget, when its own folder is its only writable place). */
  maxFileBytes?: number;
}

/** The limits when nothing configures them (ROOST_SANDBOX_MEMORY_MB, …_OPEN_FILES, …_PROCESSES for the server). */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { memoryMb: 2048, openFiles: 4096, processes: 512 };

/** A private /tmp for programs that ignore TMPDIR (which points into the extension's own folder). */
const SCRATCH_TMP_BYTES = 64 * 1024 * 1024;
/** The unprivileged user the extension runs as inside its user namespace (nobody). */
const SANDBOX_ID = '65534';

/** argv prefix: the command (and its arguments) follows it, started in `cwd` inside the sandbox. */
export function sandboxArgv(spec: SandboxSpec, cwd: string): string[] {
  const { limits } = spec;
  const rlimits = [`--data=${limits.memoryMb * 1024 * 1024}`, `--nofile=${limits.openFiles}`, `--nproc=${limits.processes}`];
  if (spec.maxFileBytes !== undefined) rlimits.push(`--fsize=${spec.maxFileBytes}`);
  // The shell joins the cgroup, then becomes prlimit, which becomes bwrap: one pid, counted from before the first fork.
  const joinCgroup = spec.cgroupProcs ? ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', spec.cgroupProcs] : [];
  return [...joinCgroup, spec.prlimit, ...rlimits, '--', spec.bwrap, ...namespaces(spec), ...mounts(spec), ...environmentArgs(spec.env), '--chdir', cwd, '--'];
}

function namespaces(spec: SandboxSpec): string[] {
  const shareNetwork = spec.grants.has('network');
  return [
    '--unshare-user', '--uid', SANDBOX_ID, '--gid', SANDBOX_ID,
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    ...(shareNetwork ? [] : ['--unshare-net']),
    '--cap-drop', 'ALL', '--die-with-parent', '--new-session',
  ];
}

// Later mounts cover earlier ones: the runtime, then a private /tmp (64 MiB), then the extra mounts,
// then the allowed roots, then blanks over the hidden paths, then the code read-only again
// (an allowed root may contain it), then a blank over the server's data dir (an allowed root or the
// package may contain it; code kept there is shown again), then the tenants' project folders (with
// `filesystem`), and last the extension's own data folder.
function mounts(spec: SandboxSpec): string[] {
  const args: string[] = [];
  args.push(...runtimeMounts(), '--proc', '/proc', '--dev', '/dev', '--size', String(SCRATCH_TMP_BYTES), '--tmpfs', '/tmp', ...(spec.extraMounts ?? []));
  if (spec.grants.has('filesystem')) for (const root of existing(spec.allowedRoots)) args.push('--bind', root, root);
  // After the allowed roots, which may contain them.
  for (const path of existing(spec.hiddenPaths ?? [])) args.push(...(statSync(path).isDirectory() ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path]));
  const code = readOnlyCode(spec);
  for (const dir of code) args.push('--ro-bind', dir, dir);
  const dataDir = realpathSync(spec.serverDataDir);
  args.push('--tmpfs', dataDir);
  for (const dir of code.filter((d) => within(dataDir, d))) args.push('--ro-bind', dir, dir);
  if (spec.grants.has('filesystem') && spec.tenantWorkspaces) {
    const workspaces = realpathSync(spec.tenantWorkspaces);
    args.push('--bind', workspaces, workspaces);
  }
  const ownDir = realpathSync(spec.ownDir);
  args.push('--bind', ownDir, ownDir);
  // The sandbox's own root (where bwrap made the mount points) must not become a place to write.
  args.push('--remount-ro', '/', '--remount-ro', dataDir);
  return args;
}

/** The package root, the real folder behind a symlinked node_modules, and an extension folder outside the package. */
function readOnlyCode(spec: SandboxSpec): string[] {
  const dirs = [spec.packageRoot];
  const modules = `${spec.packageRoot}${sep}node_modules`;
  if (existsSync(modules) && realpathSync(modules) !== modules) dirs.push(realpathSync(modules));
  const code = realpathSync(spec.codeDir);
  if (!dirs.some((dir) => within(dir, code))) dirs.push(code);
  return dirs;
}

/**
 * The host pid of the command a sandbox runs, from the pid of its outer process (prlimit becomes bwrap,
 * whose child is the namespace's init, whose child is the command), or undefined once it is gone.
 */
export function sandboxedPid(outerPid: number): number | undefined {
  let pid: number | undefined = outerPid;
  for (let depth = 0; depth < 2 && pid !== undefined; depth++) pid = childrenOf(pid)[0];
  return pid;
}
