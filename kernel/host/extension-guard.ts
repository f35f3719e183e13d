// The watchdog over one running extension's sandbox: it stops the whole sandbox (SIGKILL to every
// process in it) when the extension passes its process limit or its disk budget, and says why, for
// the extension's lastError. With a pids cgroup the kernel refuses the fork past the limit and the
// guard stops the extension at its next look (every 100 ms); without one the guard counts the
// sandbox's process tree itself: the children of each process's main thread at every look (cheap: a
// whole walk of every thread of a Node.js process takes most of a millisecond), every thread's
// children once a second (a process that forks from another thread). The disk budget is its own folder's usage, measured every half
// second (less often when measuring it takes long), so an extension overshoots by at most what it
// writes in that time.
import { readFileSync } from 'node:fs';
import type { ChildExit } from '../../lib/child.js';
import { diskUsageBytes } from './disk-usage.js';
import type { PidsCgroup } from './pids-cgroup.js';
import { processTree, readOr } from '../../lib/proc.js';

export interface GuardLimits {
  name: string;
  /** Processes (threads too, where a pids cgroup counts) of the extension's sandbox. */
  processes: number;
  /** What its own data folder may take on disk. */
  diskBytes: number;
  ownDir: string;
  cgroup?: PidsCgroup;
  /** Processes of the sandbox that are not the extension's own (bubblewrap's two). */
  overhead: number;
}

const PROCESS_POLL_MS = 100;
/** Without a cgroup: every this many looks, the whole tree (every thread's children). */
const FULL_COUNT_EVERY = 10;
const DISK_POLL_MS = 500;
/** Measuring a large folder takes time: at most a tenth of the guard's time goes into it. */
const DISK_POLL_FACTOR = 10;
const MiB = 1024 * 1024;
/** Past this share of its budget the log says so, once per start. */
const DISK_WARN_SHARE = 0.8;

export class ExtensionGuard {
  private reason: string | undefined;
  private running = false;
  /** What its folder took at the last look (undefined before the first). */
  usedBytes: number | undefined;
  private processTimer: NodeJS.Timeout | undefined;
  private diskTimer: NodeJS.Timeout | undefined;

  constructor(private readonly limits: GuardLimits, private readonly log: (level: string, message: string) => void) {}

  /** Watches the sandbox whose outermost process is `pid` until it has exited. */
  watch(pid: number | undefined, exited: Promise<unknown>): void {
    if (pid === undefined) return;
    this.running = true;
    const { cgroup, processes, overhead } = this.limits;
    const refusedBefore = cgroup?.refusals() ?? 0;
    let looks = 0;
    const counted = () => (++looks % FULL_COUNT_EVERY === 0 ? processTree(pid) : mainThreadTree(pid)).length - overhead;
    this.processTimer = setInterval(() => {
      if (cgroup ? cgroup.refusals() > refusedBefore : counted() > processes) {
        this.stop(pid, `process limit ${processes} exceeded: the extension was stopped with every process of its sandbox`);
      }
    }, PROCESS_POLL_MS).unref();
    let warned = false;
    const measure = async () => {
      const started = Date.now();
      const used = await diskUsageBytes(this.limits.ownDir);
      if (!this.running) return;
      this.usedBytes = used;
      if (used > this.limits.diskBytes) return this.stop(pid, overBudget(this.limits, used));
      if (used > this.limits.diskBytes * DISK_WARN_SHARE && !warned) {
        warned = true;
        this.log('warn', `extension ${this.limits.name}: its folder takes ${(used / MiB).toFixed(1)} MiB of its disk budget of ${Math.round(this.limits.diskBytes / MiB)} MiB (ROOST_EXTENSION_DISK_MB); over it, it is stopped`);
      }
      this.diskTimer = setTimeout(measure, Math.max(DISK_POLL_MS, (Date.now() - started) * DISK_POLL_FACTOR)).unref();
    };
    this.diskTimer = setTimeout(measure, DISK_POLL_MS).unref();
    void exited.then(() => {
      this.running = false;
      clearInterval(this.processTimer);
      clearTimeout(this.diskTimer);
      cgroup?.remove();
    });
  }

  get diskBytes(): number {
    return this.limits.diskBytes;
  }

  /** Why the guard (or the file-size limit it set) stopped the process; undefined when it did not. */
  stoppedFor(exit: ChildExit): string | undefined {
    if (this.reason) return this.reason;
    if (exit.signal === 'SIGXFSZ') return `disk budget of ${Math.round(this.limits.diskBytes / MiB)} MiB exceeded: a file reached it (the extension was stopped)`;
    return undefined;
  }

  private stop(pid: number, reason: string): void {
    if (!this.running) return;
    if (!this.reason) this.log('warn', `extension ${this.limits.name}: ${reason}`);
    this.reason ??= reason;
    // Killing bubblewrap's outer process ends its pid namespace; the cgroup also holds the sandboxes of its `exec`s.
    for (const each of processTree(pid).reverse()) kill(each);
    this.limits.cgroup?.killAll();
  }
}

/** The message of a refused start and of a stop: the budget, the usage, the folder. */
export function overBudget(limits: Pick<GuardLimits, 'diskBytes' | 'ownDir'>, used: number): string {
  return `disk budget of ${Math.round(limits.diskBytes / MiB)} MiB exceeded: ${(used / MiB).toFixed(1)} MiB in ${limits.ownDir}; it starts again once its folder is back under the budget`;
}

/** The pid and its descendants as the main threads' children show them. */
function mainThreadTree(pid: number): number[] {
  const listed = readOr(() => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8'), '').trim();
  return [pid, ...(listed ? listed.split(' ').map(Number).flatMap(mainThreadTree) : [])];
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}
