// What happens when an extension that should run stops, or cannot start: the supervisor tells a fault
// of the environment from a bug. Environmental (its database unreachable, the disk full: a start that
// fails before the spawn for such a cause, or a process that exits EXIT_ENVIRONMENTAL) never spends the
// crash budget: the start is tried again with capped backoff for as long as the fault lasts, so the
// extension is back within seconds of the cause going away. A bug (any other exit or failure) spends
// the crash budget: restarts with backoff, and `failed` once the budget is spent. A wrong configuration
// (an exit EXIT_CONFIG: a setting the extension refuses) is `failed` at once: no restart would heal it.
import { environmentalFault, EXIT_CONFIG, EXIT_ENVIRONMENTAL } from '../../protocol/faults.js';
import type { Extension } from './registry.js';

/** Why an extension stopped or could not start. */
export interface Fault {
  environmental: boolean;
  reason: string;
  /** Its configuration is wrong: it is not tried again, since a restart would fail alike. */
  final?: boolean;
}

/** The first retry after an environmental fault, doubled on each failed try up to the cap. */
export const ENVIRONMENTAL_RETRY_FIRST_MS = 500;
export const ENVIRONMENTAL_RETRY_CAP_MS = 5_000;

export function environmentalRetryMs(failedTries: number): number {
  return Math.min(ENVIRONMENTAL_RETRY_CAP_MS, ENVIRONMENTAL_RETRY_FIRST_MS * 2 ** Math.max(0, failedTries - 1));
}

/** The wait before restarting after the n-th crash within the window. */
export function crashRestartMs(crashes: number): number {
  return Math.min(5_000, 200 * 2 ** Math.max(0, crashes - 1));
}

/** A start that failed before anything was spawned (storage, roles, relay, config): which kind of fault. */
export function startFault(err: unknown): Fault {
  const message = err instanceof Error ? err.message : String(err);
  const fault = environmentalFault(err);
  if (fault === 'disk') return { environmental: true, reason: `the disk is full (${message})` };
  if (fault === 'database') return { environmental: true, reason: `the database cannot be reached (${message})` };
  return { environmental: false, reason: `could not start: ${message}` };
}

/** A process that exited on its own: EXIT_ENVIRONMENTAL or EXIT_CONFIG with the reason it wrote last, else a crash. */
export function exitFault(exit: { code: number | null; signal: string | null }, lastLine: string | undefined): Fault {
  if (exit.code === EXIT_ENVIRONMENTAL) return { environmental: true, reason: lastLine?.replace(/^environmental fault: /, '') ?? 'its environment failed' };
  if (exit.code === EXIT_CONFIG) return { environmental: false, final: true, reason: `refused its configuration: ${lastLine?.replace(/^start-up failed: /, '') ?? 'no reason given'}` };
  return { environmental: false, reason: `exited unexpectedly (${exit.signal ?? `code ${exit.code}`})` };
}

export interface SupervisorDeps {
  crashBudget: number;
  crashWindowMs: number;
  /** Whether the server is shutting down: nothing is started again then. */
  closing(): boolean;
  /** Starts the extension again (state `stopped` by then); a failure comes back here through `failed`. */
  restart(ext: Extension): Promise<unknown>;
  log(level: string, message: string): void;
}

export class Supervisor {
  constructor(private readonly deps: SupervisorDeps) {}

  /** The extension's start ended well: whatever it waited out is over. */
  started(ext: Extension): void {
    if (ext.waiting) this.deps.log('info', `extension ${ext.manifest.name} is back after ${ext.waiting.tries} failed tr${ext.waiting.tries === 1 ? 'y' : 'ies'}: ${ext.waiting.reason}`);
    ext.waiting = undefined;
  }

  /** The extension stopped, or its start failed, while it should run: start it again, or give up on a bug. */
  failed(ext: Extension, fault: Fault): void {
    const name = ext.manifest.name;
    ext.lastError = fault.reason;
    if (fault.environmental) {
      const tries = (ext.waiting?.tries ?? 0) + 1;
      const delay = environmentalRetryMs(tries);
      ext.waiting = { reason: fault.reason, tries, retryAt: Date.now() + delay };
      ext.state = 'crashed';
      // The first failed try and then every tenth: a long outage does not flood the log.
      if (tries === 1 || tries % 10 === 0) this.deps.log('warn', `extension ${name} cannot run: ${fault.reason}; trying again every ${ENVIRONMENTAL_RETRY_CAP_MS / 1000} s at most until it can (try ${tries})`);
      this.schedule(ext, delay);
      return;
    }
    ext.waiting = undefined;
    if (fault.final) {
      ext.state = 'failed';
      this.deps.log('error', `extension ${name} ${fault.reason}; not starting it again (fix the setting and restart the server)`);
      return;
    }
    const now = Date.now();
    ext.crashes = [...ext.crashes.filter((t) => now - t < this.deps.crashWindowMs), now];
    this.deps.log('warn', `extension ${name} ${fault.reason}`);
    if (ext.crashes.length > this.deps.crashBudget) {
      ext.state = 'failed';
      this.deps.log('error', `extension ${name} crashed ${ext.crashes.length} times within ${this.deps.crashWindowMs / 1000} s; not restarting it`);
      return;
    }
    ext.state = 'crashed';
    this.schedule(ext, crashRestartMs(ext.crashes.length));
  }

  private schedule(ext: Extension, delay: number): void {
    clearTimeout(ext.restartTimer);
    ext.restartTimer = setTimeout(() => {
      ext.restartTimer = undefined;
      if (ext.state !== 'crashed' || this.deps.closing()) return;
      ext.state = 'stopped';
      ext.restarts++;
      this.deps.log(ext.waiting ? 'debug' : 'info', `extension ${ext.manifest.name} restarting (restart ${ext.restarts})`);
      // A failed start comes back through failed(), which schedules the next try; nothing is left to catch.
      this.deps.restart(ext).catch(() => undefined);
    }, delay);
  }
}
