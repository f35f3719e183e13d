// Every lane step runs as the leader of its own process group, so a timeout or an interrupted lane
// can end the step together with whatever it started in the background (kill of the negative pid).
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const GRACE_MS = 2000;
const POLL_MS = 50;

export class ProcessGroups {
  private readonly groups = new Set<number>();

  add(pid: number): void {
    this.groups.add(pid);
  }

  /** SIGTERM to the whole group, SIGKILL to whatever is left after the grace period. */
  async kill(pid: number): Promise<void> {
    if (!signalGroup(pid, 'SIGTERM')) return;
    for (let waited = 0; waited < GRACE_MS; waited += POLL_MS) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (!groupAlive(pid)) return;
    }
    signalGroup(pid, 'SIGKILL');
  }

  /** Ends every group still alive: background processes do not outlive the lane run. */
  async killAll(): Promise<void> {
    await Promise.all([...this.groups].map((pid) => this.kill(pid)));
    this.groups.clear();
  }
}

/**
 * Whether any member of the group is still running. Zombies do not count: in a container whose init
 * does not reap orphans they linger, but they are already dead. Without /proc, signal 0 answers.
 */
function groupAlive(pgid: number): boolean {
  if (!existsSync('/proc/self/stat')) return signalGroup(pgid, 0);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(group) === pgid && state !== 'Z') return true;
    } catch {
      // the process ended while we looked
    }
  }
  return false;
}

/** False when the group no longer exists. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
