// A token bucket per caller (API key, or remote address for anonymous callers). Loopback callers
// without a key — the machine's owner — are not limited. One process keeps its buckets in memory;
// instances sharing a PostgreSQL database share them (rate-limit-shared.ts), so a caller spread over
// instances by a load balancer gets the limit once, not once per instance.
import { RoostError } from '../../protocol/errors.js';

/**
 * The bucket a caller's requests take their tokens from: its key's, else its address's; none for the
 * machine's owner (a loopback caller without a key) unless local auth is required.
 */
export function rateBucket(identity: { keyHash: string | null; local: boolean }, localAuthRequired: boolean, address: string): string | undefined {
  if (identity.keyHash === null && identity.local && !localAuthRequired) return undefined;
  return identity.keyHash ?? `ip:${address}`;
}

export interface RateLimiter {
  /** Takes one token for the caller or throws 429 with the seconds to wait. */
  take(caller: string): Promise<void>;
  close?(): void;
}

/** 429 for a bucket holding `tokens` (< 1) that refills `perMs` tokens a millisecond. */
export function rateLimited(tokens: number, perMs: number): RoostError {
  const retryAfter = Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
  return new RoostError('RATE_LIMITED', `too many requests; retry in ${retryAfter} s`, { details: { retryAfter } });
}

interface Bucket {
  tokens: number;
  at: number;
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(private readonly perMinute: number) {
    this.perMs = perMinute / 60_000;
  }

  async take(caller: string): Promise<void> {
    if (this.perMinute <= 0) return;
    const now = Date.now();
    const bucket = this.buckets.get(caller) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.buckets.set(caller, bucket);
      throw rateLimited(bucket.tokens, this.perMs);
    }
    bucket.tokens -= 1;
    this.buckets.set(caller, bucket);
    if (this.buckets.size > 50_000) this.prune(now);
  }

  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) if (now - bucket.at > 60_000) this.buckets.delete(key);
  }
}
