// A pids cgroup per extension: the kernel refuses a fork (or a new thread) past pids.max, whoever the
// user — root included, which RLIMIT_NPROC exempts. The extension's sandbox and every command it runs
// through `exec` join the group before they start (sandbox.ts), so none escapes the count. Used where
// the server may make cgroups: a cgroup v1 `pids` hierarchy, or cgroup v2 with the pids controller
// delegated to the server's own cgroup. Elsewhere the extension guard's process count stands alone.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readOr } from '../../lib/proc.js';

const V1_ROOT = '/sys/fs/cgroup/pids';
const V2_ROOT = '/sys/fs/cgroup';

export class PidsCgroup {
  constructor(readonly dir: string) {}

  /** The file a process writes its pid to, to join the group. */
  get procsFile(): string {
    return join(this.dir, 'cgroup.procs');
  }

  /** How often a fork was refused at pids.max since the group was made. */
  refusals(): number {
    const events = readOr(() => readFileSync(join(this.dir, 'pids.events'), 'utf8'), '');
    return Number(/^max (\d+)/m.exec(events)?.[1] ?? 0);
  }

  /** Processes (not threads) in the group now. */
  processes(): number[] {
    return readOr(() => readFileSync(this.procsFile, 'utf8'), '').split('\n').filter(Boolean).map(Number);
  }

  /** SIGKILL to every process in the group, again while a fork bomb still adds some. */
  killAll(): void {
    for (let round = 0; round < 10; round++) {
      const pids = this.processes();
      if (pids.length === 0) return;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    }
  }

  /** Removes the group once it is empty (a command still dying keeps it: the next start reuses it). */
  remove(): void {
    readOr(() => rmdirSync(this.dir), undefined);
  }
}

/** Makes cgroups for this server process: `roost-<pid>/<extension>` under its own cgroup. */
export class PidsCgroups {
  private constructor(private readonly base: string, private readonly v2: boolean) {}

  /** undefined when this machine gives the server no pids cgroup it may manage (the reason is logged). */
  static find(log: (level: string, message: string) => void): PidsCgroups | undefined {
    try {
      const own = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
      const v1Path = own.map((line) => /^\d+:(?:[^:]*,)?pids(?:,[^:]*)?:(.*)$/.exec(line)?.[1]).find((p) => p !== undefined);
      const v2Path = own.map((line) => /^0::(.*)$/.exec(line)?.[1]).find((p) => p !== undefined);
      let parent: string;
      let v2 = false;
      if (v1Path !== undefined && existsSync(join(V1_ROOT, 'cgroup.procs'))) parent = join(V1_ROOT, v1Path);
      else if (v2Path !== undefined && existsSync(join(V2_ROOT, 'cgroup.controllers'))) {
        parent = join(V2_ROOT, v2Path);
        v2 = true;
        enablePids(parent);
      } else throw new Error('no cgroup v1 pids hierarchy or cgroup v2 file system is mounted');
      removeStale(parent);
      const base = join(parent, `roost-${process.pid}`);
      mkdirSync(base, { recursive: true });
      if (v2) enablePids(base);
      return new PidsCgroups(base, v2);
    } catch (err) {
      log('warn', `extensions' process limit is kept by counting (no pids cgroup: ${(err as Error).message})`);
      return undefined;
    }
  }

  /** The group of one extension, with its limit (processes and threads) set. */
  create(name: string, maxTasks: number): PidsCgroup {
    const dir = join(this.base, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'pids.max'), String(maxTasks));
    return new PidsCgroup(dir);
  }

  /** Removes this server's groups (at shutdown; each is empty by then). */
  close(): void {
    for (const name of readOr(() => readdirSync(this.base), [] as string[])) new PidsCgroup(join(this.base, name)).remove();
    new PidsCgroup(this.base).remove();
  }

  get kind(): string {
    return this.v2 ? 'cgroup v2' : 'cgroup v1';
  }
}

/** cgroup v2: a child has pids.max only when its parent hands the controller down. */
function enablePids(dir: string): void {
  if (readFileSync(join(dir, 'cgroup.subtree_control'), 'utf8').split(' ').map((s) => s.trim()).includes('pids')) return;
  writeFileSync(join(dir, 'cgroup.subtree_control'), '+pids');
}

/** Groups left by servers that are gone (a kill -9): removed when empty. */
function removeStale(parent: string): void {
  for (const entry of readOr(() => readdirSync(parent), [] as string[])) {
    const pid = /^roost-(\d+)$/.exec(entry)?.[1];
    if (!pid || existsSync(`/proc/${pid}`)) continue;
    const dir = join(parent, entry);
    for (const child of readOr(() => readdirSync(dir, { withFileTypes: true }), [])) if (child.isDirectory()) new PidsCgroup(join(dir, child.name)).remove();
    new PidsCgroup(dir).remove();
  }
}
