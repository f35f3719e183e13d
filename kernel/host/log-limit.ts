// How much of the server's log an extension may take: a token bucket per extension over every line it
// logs (its stderr, and its `log` and `output` messages). Lines past the bucket are dropped and
// counted — a summary line per extension every 5 s, and roost_extension_log_lines_dropped_total in
// /metrics — and no line is longer than MAX_LOG_LINE_CHARS.
import type { Log, LogFields } from '../log.js';

export interface LogLimit {
  linesPerSecond: number;
  /** Lines an extension may log at once after a quiet spell. */
  burst: number;
}

export const MAX_LOG_LINE_CHARS = 8192;
const SUMMARY_EVERY_MS = 5_000;

interface Bucket {
  tokens: number;
  refilledAt: number;
  /** Dropped since the last summary line. */
  unreported: number;
}

export class ExtensionLogs {
  private readonly buckets = new Map<string, Bucket>();
  private readonly dropped = new Map<string, number>();
  private readonly timer = setInterval(() => this.summarise(), SUMMARY_EVERY_MS).unref();

  constructor(private readonly limit: LogLimit, private readonly log: Log) {}

  /** Logs the extension's line if its bucket has a token; counts it as dropped otherwise. */
  write(extension: string, level: string, message: string, fields?: LogFields): void {
    if (!this.take(extension)) {
      this.dropped.set(extension, (this.dropped.get(extension) ?? 0) + 1);
      this.buckets.get(extension)!.unreported++;
      return;
    }
    const line = message.length > MAX_LOG_LINE_CHARS ? `${message.slice(0, MAX_LOG_LINE_CHARS)}… (${message.length - MAX_LOG_LINE_CHARS} more characters cut)` : message;
    this.log(level, line, fields);
  }

  /** Lines dropped per extension since the server started. */
  droppedTotals(): ReadonlyMap<string, number> {
    return this.dropped;
  }

  close(): void {
    clearInterval(this.timer);
    this.summarise();
  }

  private take(extension: string): boolean {
    const now = Date.now();
    const { linesPerSecond, burst } = this.limit;
    let bucket = this.buckets.get(extension);
    if (!bucket) this.buckets.set(extension, (bucket = { tokens: burst, refilledAt: now, unreported: 0 }));
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.refilledAt) / 1000) * linesPerSecond);
    bucket.refilledAt = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens--;
    return true;
  }

  private summarise(): void {
    for (const [extension, bucket] of this.buckets) {
      if (bucket.unreported === 0) continue;
      this.log('warn', `[${extension}] dropped ${bucket.unreported} log lines (over ${this.limit.linesPerSecond} lines/s, burst ${this.limit.burst}; ROOST_EXTENSION_LOG_RATE)`, { extension });
      bucket.unreported = 0;
    }
  }
}
