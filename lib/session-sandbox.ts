// The sandbox a session's shell and file tools run in (extensions/sandbox assigns it, the sessions
// runner applies it): the policy, what the runner is handed, and the bubblewrap command line. Shared
// because the sandbox extension probes the very namespaces the runner will make.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { environmentArgs, existing, runtimeMounts, within } from './bwrap.js';

export interface SandboxPolicy {
  /** false: the command gets a network namespace of its own with nothing in it. */
  network: boolean;
  /** Folders of the working directory the command may write, relative to it ("." is all of it). */
  writablePaths: string[];
  cpuSeconds: number;
  memoryMb: number;
  maxProcesses: number;
  wallTimeSeconds: number;
}

export const DEFAULT_POLICY: SandboxPolicy = {
  network: false,
  writablePaths: ['.'],
  cpuSeconds: 60,
  memoryMb: 1024,
  maxProcesses: 128,
  wallTimeSeconds: 300,
};

/** What the runner is handed for a session with a sandbox. */
export interface SandboxGrant {
  sandboxId: string;
  bwrap: string;
  prlimit: string;
  /** Whether bwrap may mount a fresh /proc here (not when the server itself runs inside bubblewrap). */
  procfs: boolean;
  policy: SandboxPolicy;
}

/** The user the command runs as inside its user namespace (nobody): it owns the mapped files. */
const SANDBOX_ID = '65534';
/** A private /tmp (also HOME) per command. */
const SCRATCH_TMP_BYTES = 64 * 1024 * 1024;
/** bwrap's own two processes (the monitor outside, the namespace's init) under the command. */
export const BWRAP_OVERHEAD_PROCESSES = 2;

export function namespaceArgs(grant: Pick<SandboxGrant, 'procfs' | 'policy'>): string[] {
  return [
    '--unshare-user', '--uid', SANDBOX_ID, '--gid', SANDBOX_ID,
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    ...(grant.policy.network ? [] : ['--unshare-net']),
    '--cap-drop', 'ALL', '--die-with-parent', '--new-session',
    '--dev', '/dev', ...(grant.procfs ? ['--proc', '/proc'] : []),
  ];
}

/**
 * argv running `command` in `cwd` under prlimit (CPU time, memory, processes, open files) and
 * bubblewrap: the runtime and `readOnly` read-only, a private /tmp, the working directory read-only
 * but for the policy's writable folders, and exactly `env`.
 */
export function sandboxCommand(grant: SandboxGrant, cwd: string, env: Record<string, string>, command: string[], options: { readOnly?: string[]; memoryMb?: number; processes?: number } = {}): string[] {
  const { policy } = grant;
  const memory = (options.memoryMb ?? policy.memoryMb) * 1024 * 1024;
  const limits = [`--cpu=${policy.cpuSeconds}:${policy.cpuSeconds + 1}`, `--data=${memory}`, `--nproc=${(options.processes ?? policy.maxProcesses) + BWRAP_OVERHEAD_PROCESSES}`, '--nofile=1024', '--core=0'];
  const root = realpathSync(cwd);
  const mounts = [...runtimeMounts(), '--size', String(SCRATCH_TMP_BYTES), '--tmpfs', '/tmp'];
  for (const path of existing(options.readOnly ?? [])) mounts.push('--ro-bind', path, path);
  mounts.push('--ro-bind', root, root);
  for (const path of writableFolders(root, policy.writablePaths)) mounts.push('--bind', path, path);
  const fullEnv = { ...env, HOME: '/tmp', TMPDIR: '/tmp' };
  return [grant.prlimit, ...limits, '--', grant.bwrap, ...namespaceArgs(grant), ...mounts, '--remount-ro', '/', ...environmentArgs(fullEnv), '--chdir', root, '--', ...command];
}

/** The writable folders that exist, followed through links, and still inside the working directory. */
export function writableFolders(root: string, writablePaths: string[]): string[] {
  return existing(writablePaths.map((p) => join(root, p))).filter((real) => within(root, real));
}
