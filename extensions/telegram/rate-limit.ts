// Per-chat rate limit on what a chat sends the bot: a token bucket refilled over a minute. A flooding
// chat is told once, then ignored until it slows down; other chats are not affected.
export class ChatRateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number; warned: boolean }>();

  constructor(private readonly perMinute: number, private readonly now: () => number = Date.now) {}

  take(chatId: string): boolean {
    const t = this.now();
    const b = this.buckets.get(chatId) ?? { tokens: this.perMinute, at: t, warned: false };
    b.tokens = Math.min(this.perMinute, b.tokens + ((t - b.at) / 60_000) * this.perMinute);
    b.at = t;
    this.buckets.set(chatId, b);
    if (this.buckets.size > 10_000) this.buckets.delete(this.buckets.keys().next().value!);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    b.warned = false;
    return true;
  }

  /** True the first time a limited chat is refused since it was last let through. */
  warnOnce(chatId: string): boolean {
    const b = this.buckets.get(chatId);
    if (!b || b.warned) return false;
    b.warned = true;
    return true;
  }
}
