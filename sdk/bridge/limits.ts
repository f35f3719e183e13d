// Rate limits of a chat bridge, the same for every bridge: what comes in is limited per conversation (or
// per user) by a token bucket refilled over a minute, so a flood from one chat neither starts session
// after session nor crowds out the others; what goes out is paced per chat channel, queued rather than
// dropped, so a chatty agent cannot flood a channel or trip the service's own limits.

/** Incoming: `perMinute` messages per key, refilled continuously; a refused key is told once. */
export class InboundLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number; warned: boolean }>();

  constructor(private readonly perMinute: number, private readonly now: () => number = Date.now) {}

  take(key: string): boolean {
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.perMinute, at: t, warned: false };
    b.tokens = Math.min(this.perMinute, b.tokens + ((t - b.at) / 60_000) * this.perMinute);
    b.at = t;
    // Re-inserted, so the map's order is the order of last use and the oldest goes first when full.
    this.buckets.delete(key);
    this.buckets.set(key, b);
    if (this.buckets.size > 10_000) this.buckets.delete(this.buckets.keys().next().value!);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    b.warned = false;
    return true;
  }

  /** True the first time a limited key is refused since it was last let through. */
  warnOnce(key: string): boolean {
    const b = this.buckets.get(key);
    if (!b || b.warned) return false;
    b.warned = true;
    return true;
  }
}

/** Outgoing: messages to one channel leave at least `minIntervalMs` apart. */
export class ChannelPacer {
  private readonly next = new Map<string, number>();

  constructor(private readonly minIntervalMs: number, private readonly now: () => number = Date.now) {}

  /** How long the caller must wait before its message to `channelId` may leave (its slot is taken). */
  reserve(channelId: string): number {
    const now = this.now();
    const at = Math.max(now, this.next.get(channelId) ?? 0);
    this.next.set(channelId, at + this.minIntervalMs);
    if (this.next.size > 10_000) for (const [id, t] of this.next) if (t < now) this.next.delete(id);
    return at - now;
  }

  async turn(channelId: string): Promise<void> {
    const wait = this.reserve(channelId);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** The bridges' defaults (each overridable by its ROOST_EXT_<BRIDGE>_INBOUND_PER_MINUTE setting). */
export const DEFAULT_INBOUND_PER_MINUTE = 20;
