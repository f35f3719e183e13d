// Spare runners, spawned ahead of need: loading node and the provider and MCP SDKs is most of a
// runner's start-up, so a session start or a context reset takes a process that has done it already.
// The pool is sized to recent demand: as many spares as the largest burst of starts (takes close
// together, such as a council's members) seen in the last ten minutes, at least one and at most
// `max`. An idle server keeps no extra process until sessions are in use; spares beyond a demand that
// has aged out are stopped at the next start.
import { RunnerProcess } from './runner-process.js';

/** Takes this close together count as one burst. */
const BURST_MS = 2_000;
/** How long a burst keeps the pool at its size. */
const DEMAND_WINDOW_MS = 10 * 60_000;

export class RunnerPool {
  private spares: RunnerProcess[] = [];
  private readonly demand: BurstDemand;
  private closed = false;

  constructor(
    private readonly pluginDir: string,
    max: number,
  ) {
    this.demand = new BurstDemand(max);
  }

  /** A warm runner if one is ready, else a new one; call refill() once the taken one has started. */
  take(): RunnerProcess {
    this.demand.record();
    this.spares = this.spares.filter((s) => s.running);
    return this.spares.shift() ?? new RunnerProcess(this.pluginDir);
  }

  /** Brings the spares to the current demand: spawns the missing ones, stops the surplus. */
  refill(): void {
    if (this.closed) return;
    this.spares = this.spares.filter((s) => s.running);
    const target = this.demand.target();
    while (this.spares.length < target) this.spares.push(new RunnerProcess(this.pluginDir));
    for (const surplus of this.spares.splice(target)) void surplus.stop();
  }

  async close(): Promise<void> {
    this.closed = true;
    const spares = this.spares;
    this.spares = [];
    await Promise.all(spares.map((s) => s.stop()));
  }
}

/** How many runners were wanted at once lately: the largest burst of takes in the demand window. */
export class BurstDemand {
  /** When runners were taken, oldest first, within the demand window. */
  private takes: number[] = [];

  constructor(
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {}

  record(): void {
    this.takes.push(this.now());
  }

  /** Between 1 and max once anything was taken in the window; 0 otherwise. */
  target(): number {
    const since = this.now() - DEMAND_WINDOW_MS;
    this.takes = this.takes.filter((t) => t >= since);
    let burst = 0;
    for (let first = 0, last = 0; last < this.takes.length; last++) {
      while (this.takes[last]! - this.takes[first]! > BURST_MS) first++;
      burst = Math.max(burst, last - first + 1);
    }
    return Math.min(burst, this.max);
  }
}
