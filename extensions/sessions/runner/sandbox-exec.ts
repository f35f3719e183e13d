// Running one command of a sandboxed session: under prlimit and bubblewrap (see
// lib/session-sandbox.ts), watched while it runs — more processes than the policy
// allows or more resident memory than it allows kill the whole sandbox at once (the rlimits alone do
// not hold a server running as root: Linux exempts root from RLIMIT_NPROC), as does its wall time —
// and afterwards explained: which limit stopped it, in words the model can act on.
import { constants } from 'node:os';
import { readFileSync } from 'node:fs';
import { processTree } from '../../../lib/proc.js';
import { BWRAP_OVERHEAD_PROCESSES, sandboxCommand, type SandboxGrant } from '../../../lib/session-sandbox.js';

export interface SandboxedRun {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** Why the sandbox stopped or refused the command, when it did. */
  verdict: string | null;
}

const WATCH_INTERVAL_MS = 20;
const PAGE_BYTES = 4096;
const MiB = 1024 * 1024;

export interface SandboxedOptions {
  timeoutSeconds: number;
  maxBuffer: number;
  input?: string;
  readOnly?: string[];
  /** Overrides of the policy's rlimits for a program of the runner's own (the file tools' worker). */
  memoryMb?: number;
  processes?: number;
  /** Called with a kill function while the command runs (the runner kills everything when it leaves). */
  track?: (kill: () => void) => () => void;
}

export async function runSandboxed(grant: SandboxGrant, cwd: string, env: Record<string, string>, command: string[], options: SandboxedOptions): Promise<SandboxedRun> {
  const { policy } = grant;
  const [file, ...args] = sandboxCommand(grant, cwd, env, command, { readOnly: options.readOnly, memoryMb: options.memoryMb, processes: options.processes });
  const { execa } = await import('execa'); // loaded with the first command, not with every runner
  const child = execa(file!, args, {
    cwd,
    env: {},
    extendEnv: false,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    detached: true,
    reject: false,
    maxBuffer: options.maxBuffer,
  });
  let verdict: string | null = null;
  // Killing bwrap's outer process takes its pid namespace, and so every process of the command, with it.
  const stop = (why: string) => {
    verdict ??= why;
    killGroup(child.pid);
  };
  const wallSeconds = Math.min(options.timeoutSeconds, policy.wallTimeSeconds);
  const timer = setTimeout(() => stop(wallSeconds === policy.wallTimeSeconds ? `wall time of ${wallSeconds} s reached (sandbox limit); killed` : `timed out after ${wallSeconds} s (killed)`), wallSeconds * 1000);
  const watcher = setInterval(() => {
    if (child.pid === undefined) return;
    const tree = processTree(child.pid);
    if (tree.length - BWRAP_OVERHEAD_PROCESSES > policy.maxProcesses) return stop(`more than ${policy.maxProcesses} processes (sandbox process limit); every process of the command was killed`);
    const resident = tree.reduce((sum, pid) => sum + residentBytes(pid), 0);
    if (resident > policy.memoryMb * MiB) stop(`memory use over ${policy.memoryMb} MiB (sandbox memory limit); killed`);
  }, WATCH_INTERVAL_MS);
  const untrack = options.track?.(() => stop('the session stopped'));
  const result = await child.finally(() => {
    clearTimeout(timer);
    clearInterval(watcher);
    untrack?.();
  });
  const stdout = String(result.stdout ?? '');
  const stderr = String(result.stderr ?? '');
  return { exitCode: result.exitCode, stdout, stderr, verdict: verdict ?? explain(grant, result.exitCode, stderr) };
}

/** The limit a command ran into by itself (an rlimit refusing it, or a signal it brings). */
function explain(grant: SandboxGrant, exitCode: number | undefined, stderr: string): string | null {
  const { policy } = grant;
  const signal = exitCode !== undefined && exitCode > 128 ? signalName(exitCode - 128) : undefined;
  if (signal === 'SIGXCPU' || /cpu time limit exceeded/i.test(stderr)) return `CPU time limit of ${policy.cpuSeconds} s reached (sandbox limit); killed`;
  if (/cannot fork|fork: (retry|resource temporarily unavailable)|can't fork|resource temporarily unavailable/i.test(stderr)) return `the sandbox's process limit (${policy.maxProcesses}) refused a new process`;
  if (signal === 'SIGSEGV' || signal === 'SIGABRT' || /cannot allocate memory|out of memory|memoryerror|bad_alloc|heap out of memory|enomem/i.test(stderr)) {
    return `the command ran out of memory under the sandbox's limit of ${policy.memoryMb} MiB`;
  }
  return null;
}

/** One line the model reads under every sandboxed result: what the sandbox allows. */
export function describeSandbox(grant: SandboxGrant): string {
  const { policy } = grant;
  return `sandbox ${grant.sandboxId}: network ${policy.network ? 'on' : 'off'}; writable only: ${policy.writablePaths.join(', ')} (in the working directory) and /tmp; limits: ${policy.cpuSeconds} s CPU, ${policy.memoryMb} MiB memory, ${policy.maxProcesses} processes, ${policy.wallTimeSeconds} s wall time`;
}

function signalName(number: number): string | undefined {
  return Object.entries(constants.signals).find(([, n]) => n === number)?.[0];
}

function residentBytes(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE_BYTES;
  } catch {
    return 0;
  }
}

/** Kills a command's process group: for a sandboxed one, bwrap's outer process, which takes the namespace along. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
