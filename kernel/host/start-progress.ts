// The deadline of an extension's start follows its progress instead of a fixed timer: on a busy
// machine a start is slow but moving, and only a start that stops moving (or exceeds a generous
// absolute cap) is given up. Progress is CPU time spent by the child and its descendants (a wrapper
// such as a sandbox runs the real process as a descendant), read from /proc, or any line of output.
import { readFile } from 'node:fs/promises';

export interface StartWatchOptions {
  pid: number | undefined;
  /** Give up after this long without progress. */
  stallMs: number;
  /** Give up after this long whatever the progress. */
  capMs: number;
}

export class StartWatch {
  private readonly startedAt = Date.now();
  private lastProgressAt = this.startedAt;
  private lastCpu = -1;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: StartWatchOptions) {}

  /** The child showed a sign of life other than CPU time (a line on stderr, a frame). */
  progress(): void {
    this.lastProgressAt = Date.now();
  }

  /** Resolves with the reason the start is given up; never resolves once stop() was called. */
  expired(): Promise<string> {
    const { stallMs, capMs } = this.options;
    const pollMs = Math.max(20, Math.min(250, Math.floor(stallMs / 4)));
    return new Promise((resolve) => {
      const check = async () => {
        const cpu = await cpuTicks(this.options.pid);
        if (this.timer === undefined) return;
        if (cpu !== undefined && cpu > this.lastCpu) {
          if (this.lastCpu >= 0) this.lastProgressAt = Date.now();
          this.lastCpu = cpu;
        }
        const now = Date.now();
        if (now - this.startedAt >= capMs) return resolve(`sent no "ready" within the ${capMs} ms cap on a start`);
        if (now - this.lastProgressAt >= stallMs) return resolve(`sent no "ready" within ${stallMs} ms of its last sign of progress`);
        this.timer = setTimeout(check, pollMs).unref();
      };
      this.timer = setTimeout(check, pollMs).unref();
    });
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** utime + stime of pid and all its descendants in clock ticks; undefined without /proc. */
export async function cpuTicks(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  let ticks = Number(fields[11]) + Number(fields[12]);
  for (const child of await childrenOf(pid)) ticks += (await cpuTicks(child)) ?? 0;
  return ticks;
}

async function childrenOf(pid: number): Promise<number[]> {
  const list = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return list.split(' ').filter(Boolean).map(Number);
}
