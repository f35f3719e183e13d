// When a lazy or deferred extension runs. It starts on first use (the registry's ensureRunning); this
// file keeps what decides the rest: when the deferred ones start unused (a while after the server's
// start, as VS Code's onStartupFinished: work that should run, just not before the server is ready),
// the wake-on-start flags extensions set with `wake_on_start` (kept in the kernel's plugin_kv, so they
// outlive the server), and the idle stop — a lazy extension that has had
// no traffic either way for `idleMs`, no request in flight, no WebSocket stream subscriber and no
// wake-on-start flag (its veto: "I hold running work") is stopped, and started again on its next use.
import type { Knex } from 'knex';
import type { HostServices } from './services.js';

/** plugin_kv key of the flag; extensions' own keys live in the same table but never start with "roost.". */
export const WAKE_KEY = 'roost.wake_on_start';

export interface ActivationDeps {
  db: Knex;
  /** 0: never stop an idle extension. */
  idleMs: number;
  /** After the start, when the deferred extensions start; 0: at once. */
  deferredStartMs: number;
  /** Lazy extensions that run now and may be stopped (neither starting nor stopping). */
  idleCandidates(): string[];
  /** Something outside the extension depends on it (open WebSocket stream subscriptions). */
  busy(name: string): boolean;
  stop(name: string): Promise<void>;
  log(level: string, message: string): void;
}

interface Activity {
  inFlight: number;
  lastActive: number;
}

export class Activation {
  private readonly activity = new Map<string, Activity>();
  private readonly wake = new Set<string>();
  /** Flag writes of one extension land in the order it sent them. */
  private writes: Promise<unknown> = Promise.resolve();
  private sweeper: NodeJS.Timeout | undefined;
  private deferredTimer: NodeJS.Timeout | undefined;
  /** The deferred extensions' time has come: one loaded from now on starts as an eager one does. */
  private deferredDue = false;

  constructor(private readonly deps: ActivationDeps) {
    if (deps.idleMs > 0) {
      // Checked at least twice per idle period: an idle extension stops between idleMs and 1.5 × idleMs.
      this.sweeper = setInterval(() => this.sweep(), Math.max(100, Math.min(deps.idleMs / 2, 30_000)));
      this.sweeper.unref();
    }
  }

  /** The extensions that asked to be started with the server (read once, at start-up). */
  async loadWakeFlags(): Promise<Set<string>> {
    const rows: Array<{ plugin: string }> = await this.deps.db('plugin_kv').where({ key: WAKE_KEY, value: 'true' }).select('plugin');
    for (const row of rows) this.wake.add(row.plugin);
    return new Set(this.wake);
  }

  async setWake(name: string, wake: boolean): Promise<void> {
    if (wake) this.wake.add(name);
    else this.wake.delete(name);
    const write = this.writes.then(() =>
      this.deps.db('plugin_kv').insert({ plugin: name, key: WAKE_KEY, value: String(wake), updated_at: new Date().toISOString() }).onConflict(['plugin', 'key']).merge(),
    );
    this.writes = write.catch(() => undefined);
    await write;
  }

  touch(name: string): void {
    const a = this.of(name);
    a.lastActive = Date.now();
  }

  /** A request or tool call is on its way to the extension; `end` when its answer (or failure) is back. */
  begin(name: string): void {
    const a = this.of(name);
    a.inFlight++;
    a.lastActive = Date.now();
  }

  end(name: string): void {
    const a = this.of(name);
    a.inFlight--;
    a.lastActive = Date.now();
  }

  /** The services an extension's messages reach, each call counted as activity, plus `wake_on_start`. */
  watch(name: string, services: HostServices): HostServices {
    const watched: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(services)) {
      watched[key] = typeof value === 'function' ? (...args: unknown[]) => (this.touch(name), value(...args)) : value;
    }
    return { ...(watched as unknown as HostServices), wakeOnStart: (wake) => this.setWake(name, wake) };
  }

  /** Whether an extension of this activation, loaded now, starts at once. */
  startsOnLoad(activation: string): boolean {
    return activation === 'eager' || (activation === 'deferred' && this.deferredDue);
  }

  /** Calls `start` deferredStartMs from now (at once for 0); a server stopped before then never calls it. */
  whenDeferredDue(start: () => void): void {
    const due = () => {
      this.deferredDue = true;
      start();
    };
    if (this.deps.deferredStartMs <= 0) return due();
    this.deferredTimer = setTimeout(due, this.deps.deferredStartMs);
    this.deferredTimer.unref();
  }

  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    clearTimeout(this.deferredTimer);
  }

  private sweep(): void {
    const now = Date.now();
    for (const name of this.deps.idleCandidates()) {
      const a = this.of(name);
      if (a.inFlight > 0 || this.wake.has(name) || now - a.lastActive < this.deps.idleMs || this.deps.busy(name)) continue;
      this.deps.log('info', `extension ${name} idle for ${Math.round((now - a.lastActive) / 1000)} s; stopping it until its next use`);
      this.deps.stop(name).catch((err) => this.deps.log('warn', `stopping idle extension ${name} failed: ${(err as Error).message}`));
    }
  }

  private of(name: string): Activity {
    let a = this.activity.get(name);
    if (!a) {
      a = { inFlight: 0, lastActive: Date.now() };
      this.activity.set(name, a);
    }
    return a;
  }
}
