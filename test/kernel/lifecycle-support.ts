// Shared by the lifecycle tests (shutdown, crash recovery, start under load): a write load that records
// what the server acknowledged, and what /proc says about processes.
import { readdirSync, readFileSync } from 'node:fs';
import { isAlive } from '../helpers/sandbox-pids.js';

export { isAlive };

export interface WriteLoad {
  /** Ids of the projects the server answered 201 for. */
  acknowledged: string[];
  /** Statuses (or error names) of every answer, counted. */
  outcomes: Map<string, number>;
  stop(): Promise<void>;
}

/** `concurrency` workers POSTing /api/projects back to back until stop(); failures are counted, not thrown. */
export function writeLoad(url: string, workingDir: string, concurrency: number): WriteLoad {
  const acknowledged: string[] = [];
  const outcomes = new Map<string, number>();
  let running = true;
  const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  const worker = async (w: number) => {
    for (let n = 0; running; n++) {
      try {
        const res = await fetch(`${url}/api/projects`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `load-${w}-${n}`, workingDir }),
          signal: AbortSignal.timeout(30_000),
        });
        const body = (await res.json()) as { id?: string };
        count(String(res.status));
        if (res.status === 201 && body.id) acknowledged.push(body.id);
      } catch (err) {
        count(((err as Error).cause as { code?: string } | undefined)?.code ?? (err as Error).name);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const workers = Array.from({ length: concurrency }, (_, w) => worker(w));
  return {
    acknowledged,
    outcomes,
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

/** Pids of the live (not zombie) processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** Live processes whose command line mentions `text` (a data dir), with that command line. */
export function processesMentioning(text: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(text) && isAlive(Number(entry))) found.push({ pid: Number(entry), cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
