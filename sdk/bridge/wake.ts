// An extension asks the kernel to start it with the server while it holds work that must go on (host
// wakeOnStart). A bridge has several such reasons (a polling bot, messages in its outbox): each part sets
// its own flag, and the kernel is told only when the answer to "any of them?" changes.
import type { HostClient } from '../host-client.js';

export class WakeFlags {
  private readonly flags = new Map<string, boolean>();
  private told: boolean | undefined;

  constructor(private readonly host: HostClient) {}

  async set(reason: string, on: boolean): Promise<void> {
    this.flags.set(reason, on);
    const wake = [...this.flags.values()].some(Boolean);
    if (wake === this.told) return;
    this.told = wake;
    await this.host.wakeOnStart(wake);
  }
}
