// Outbound rate limit per chat channel: messages to one channel leave at least `minIntervalMs` apart
// (queued, not dropped), so a chatty agent cannot flood a channel or trip the service's own limits.
export class ChannelPacer {
  private readonly next = new Map<string, number>();

  constructor(private readonly minIntervalMs: number) {}

  async turn(channelId: string): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next.get(channelId) ?? 0);
    this.next.set(channelId, at + this.minIntervalMs);
    if (this.next.size > 10_000) for (const [id, t] of this.next) if (t < now) this.next.delete(id);
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }
}
