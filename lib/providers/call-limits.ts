// What may end one model call before the provider does: the driver's own deadline (an outage, so a
// session pauses and retries) and the caller's signal (its timeout or its cancel).
import type { RoostError } from '../../protocol/errors.js';
import { aborted, timedOut } from './errors.js';

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** The driver's own limit for one call: the configured one, 10 min by default, or none (null). */
export function driverTimeout(requestTimeoutMs: number | null | undefined): number | null {
  return requestTimeoutMs === undefined ? DEFAULT_TIMEOUT_MS : requestTimeoutMs;
}

export class CallLimits {
  /** The signal to hand to fetch or the SDK: fires at the deadline or on the caller's abort. */
  readonly signal: AbortSignal | undefined;
  private readonly deadline: AbortSignal | undefined;

  constructor(
    private readonly provider: string,
    private readonly caller: AbortSignal | undefined,
    private readonly timeoutMs: number | null,
  ) {
    this.deadline = timeoutMs === null ? undefined : AbortSignal.timeout(timeoutMs);
    this.signal = caller && this.deadline ? AbortSignal.any([caller, this.deadline]) : (caller ?? this.deadline);
  }

  /** The error for the abort that ended the call, or null when nothing was aborted. */
  abortError(): RoostError | null {
    if (this.deadline?.aborted) return timedOut(this.provider, this.timeoutMs ?? 0);
    if (this.caller?.aborted) return aborted(this.provider, this.caller);
    return null;
  }
}
