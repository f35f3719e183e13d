// Provider failures as RoostErrors whose code alone says what to do (codes survive a cli-v1 hop,
// details do not):
//   PROVIDER_UNAVAILABLE  5xx, overload, connection refused/reset, the driver's own deadline → pause, retry later
//   RATE_LIMITED          429                                                             → pause, retry later
//   UPSTREAM_ERROR        any other refusal (bad key, unknown model, invalid request)      → fatal for the session
//   PROVIDER_NOT_CONFIGURED  no key / no host configured                                   → fatal, names the variable
//   TIMEOUT / CANCELLED   the caller's signal fired (an AbortSignal.timeout, or any other abort)
// One-shot commands, which retry nothing, see PROVIDER_UNAVAILABLE as UPSTREAM_ERROR (completion.ts).
import { RoostError } from '../../protocol/errors.js';

const OUTAGE_CODES = new Set(['PROVIDER_UNAVAILABLE', 'RATE_LIMITED']);

export function isOutage(err: unknown): boolean {
  return err instanceof RoostError && OUTAGE_CODES.has(err.code);
}

/** Nobody answered at the provider's address (see `unreachable`). */
export function isUnreachable(err: unknown): boolean {
  return err instanceof RoostError && (err.details as { reachable?: boolean } | undefined)?.reachable === false;
}

export function notConfigured(message: string): RoostError {
  return new RoostError('PROVIDER_NOT_CONFIGURED', message, { status: 503 });
}

/** An HTTP error status from a provider (or the status its in-stream error stands for). */
export function statusError(provider: string, status: number, detail: string): RoostError {
  const message = `${provider} answered ${status}: ${detail}`;
  const details = { provider, status };
  if (status === 429) return new RoostError('RATE_LIMITED', message, { details });
  if (status >= 500 || status === 408) return new RoostError('PROVIDER_UNAVAILABLE', message, { status: 503, details });
  return new RoostError('UPSTREAM_ERROR', message, { details });
}

export function unreachable(provider: string, baseUrl: string, cause: unknown, hint: string): RoostError {
  return new RoostError('PROVIDER_UNAVAILABLE', `cannot reach ${provider} at ${baseUrl}: ${describe(cause)}; ${hint}`, {
    status: 503,
    cause,
    details: { provider, reachable: false },
  });
}

export function timedOut(provider: string, ms: number): RoostError {
  return new RoostError('PROVIDER_UNAVAILABLE', `${provider} did not finish answering within ${Math.round(ms / 1000)} s`, { status: 503 });
}

/** The caller aborted: by its deadline (TIMEOUT) or otherwise (CANCELLED). */
export function aborted(provider: string, signal: AbortSignal | undefined): RoostError {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') return new RoostError('TIMEOUT', `${provider} did not answer in time`);
  return new RoostError('CANCELLED', `${provider} request cancelled`);
}

function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as Error & { cause?: unknown }).cause;
  if (inner instanceof Error && 'code' in inner) return `${String((inner as Error & { code: unknown }).code)} ${inner.message}`.trim();
  return cause.message;
}
