// Spare runners, spawned ahead of need: loading node, the runner and the provider's SDK is most of a
// runner's start-up, so a session start or a context reset takes a process that has done it already
// (a spare loads the SDKs of the providers taken lately while it waits). The pool is sized to recent
// demand: as many spares as the largest burst of starts (takes close together, such as a council's
// members) seen in the last ten minutes, at least one and at most `max`. An idle server keeps no extra
// process until sessions are in use; spares beyond a demand that has aged out are stopped at the next
// refill. Spares are spawned once a burst has settled, and one at a time (the next once the last has
// loaded what it preloads), so that starting them never takes both cores from the sessions at work.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DriverName } from '../../lib/providers/index.js';
import { RunnerProcess } from './runner-process.js';

/** Takes this close together count as one burst. */
const BURST_MS = 2_000;
/** How long a burst keeps the pool at its size. */
const DEMAND_WINDOW_MS = 10 * 60_000;
/** A refill waits for this long without a take, and never longer than REFILL_MAX_WAIT_MS. */
const REFILL_QUIET_MS = 300;
const REFILL_MAX_WAIT_MS = 2_000;
/** The longest a refill waits for one spare to get warm before it spawns the next. */
const WARM_WAIT_MS = 5_000;

export class RunnerPool {
  private spares: RunnerProcess[] = [];
  private readonly demand: BurstDemand;
  private readonly providers = new Set<DriverName>();
  private refillTimer: NodeJS.Timeout | undefined;
  private refillAsked: number | undefined;
  private refilling = false;
  private closed = false;

  constructor(
    private readonly pluginDir: string,
    max: number,
  ) {
    this.demand = new BurstDemand(max);
  }

  /** A warm runner if one is ready, else a new one; call refill() once the taken one has started. */
  take(provider: DriverName): RunnerProcess {
    this.demand.record();
    this.providers.add(provider);
    this.spares = this.spares.filter((s) => s.running);
    if (this.refillTimer) this.scheduleRefill();
    return this.spares.shift() ?? new RunnerProcess(this.pluginDir);
  }

  /** Brings the spares to the current demand once starts have settled: spawns the missing ones, stops the surplus. */
  refill(): void {
    this.refillAsked ??= Date.now();
    this.scheduleRefill();
  }

  private scheduleRefill(): void {
    if (this.refillTimer) clearTimeout(this.refillTimer);
    const waited = Date.now() - (this.refillAsked ?? Date.now());
    this.refillTimer = setTimeout(() => void this.refillNow(), Math.max(0, Math.min(REFILL_QUIET_MS, REFILL_MAX_WAIT_MS - waited)));
    this.refillTimer.unref();
  }

  private async refillNow(): Promise<void> {
    this.refillTimer = this.refillAsked = undefined;
    if (this.refilling) return; // the refill under way reads the demand again before each spare
    this.refilling = true;
    try {
      while (!this.closed) {
        this.spares = this.spares.filter((s) => s.running);
        const target = this.demand.target();
        for (const surplus of this.spares.splice(target)) void surplus.stop();
        if (this.spares.length >= target) return;
        const spare = new RunnerProcess(this.pluginDir, [...this.providers]);
        this.spares.push(spare);
        await Promise.race([spare.warm, sleep(WARM_WAIT_MS, undefined, { ref: false })]);
      }
    } finally {
      this.refilling = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.refillTimer) clearTimeout(this.refillTimer);
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

  /** Between 1 and max once anything was taken in the window (0 with max 0: no spares); 0 otherwise. */
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
