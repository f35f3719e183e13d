// One spare runner, spawned ahead of need: loading node and the provider and MCP SDKs is most of a
// runner's start-up, so a session start or a context reset takes a process that has done it already.
// The spare is made only once sessions are in use (an idle server keeps no extra process).
import { RunnerProcess } from './runner-process.js';

export class RunnerPool {
  private spare: RunnerProcess | undefined;
  private closed = false;

  constructor(private readonly pluginDir: string) {}

  /** A warm runner if one is ready, else a new one; call refill() once the taken one has started. */
  take(): RunnerProcess {
    const warm = this.spare?.running ? this.spare : undefined;
    this.spare = undefined;
    return warm ?? new RunnerProcess(this.pluginDir);
  }

  refill(): void {
    if (this.closed || this.spare?.running) return;
    this.spare = new RunnerProcess(this.pluginDir);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.spare?.stop();
    this.spare = undefined;
  }
}
