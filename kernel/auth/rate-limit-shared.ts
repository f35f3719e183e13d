// The rate limiter of instances sharing a PostgreSQL database: the buckets are rows of
// roost_kernel.rate_buckets, refilled and taken from in one atomic upsert on the database's clock (so
// the instances' clocks need not agree). A request that is limited costs one round trip.
import type { Knex } from 'knex';
import { rateLimited, type RateLimiter } from './rate-limit.js';

/** A bucket untouched this long is full again: its row can go. */
const IDLE_MS = 60_000;
const SWEEP_MS = 60_000;
/** The database's clock in milliseconds. */
const NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

export class SharedRateLimiter implements RateLimiter {
  private readonly perMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly db: Knex, private readonly perMinute: number, log: (level: string, message: string) => void) {
    this.perMs = perMinute / 60_000;
    this.sweeper = setInterval(() => {
      void db.raw(`DELETE FROM rate_buckets WHERE at < ${NOW_MS} - ?`, [IDLE_MS]).catch((err: Error) => log('warn', `rate limit: sweeping buckets failed: ${err.message}`));
    }, SWEEP_MS).unref();
  }

  async take(caller: string): Promise<void> {
    if (this.perMinute <= 0) return;
    const cap = this.perMinute;
    // `refilled` is what the bucket holds now; a token is taken only when there is a whole one.
    const refilled = 'LEAST(?::float8, b.tokens + (EXCLUDED.at - b.at) * ?::float8)';
    const { rows } = await this.db.raw<{ rows: Array<{ tokens: number; allowed: boolean }> }>(
      `INSERT INTO rate_buckets AS b (caller, tokens, at, allowed) VALUES (?, ?::float8 - 1, ${NOW_MS}, true)
       ON CONFLICT (caller) DO UPDATE SET
         tokens = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
         allowed = ${refilled} >= 1,
         at = EXCLUDED.at
       RETURNING tokens, allowed`,
      [caller, cap, cap, this.perMs, cap, this.perMs, cap, this.perMs, cap, this.perMs],
    );
    const bucket = rows[0]!;
    if (!bucket.allowed) throw rateLimited(bucket.tokens, this.perMs);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}
