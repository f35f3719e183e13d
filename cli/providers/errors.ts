// Provider failures become RoostErrors with honest codes, whichever client raised them.
import { RoostError } from '../../protocol/errors.js';

export function providerNotConfigured(message: string): RoostError {
  return new RoostError('PROVIDER_NOT_CONFIGURED', message, { status: 503 });
}

/** An HTTP error answer from a provider: 429 stays RATE_LIMITED, everything else is UPSTREAM_ERROR. */
export function upstreamStatusError(provider: string, status: number, detail: string): RoostError {
  const message = `${provider} answered ${status}: ${detail}`;
  return status === 429
    ? new RoostError('RATE_LIMITED', message, { details: { provider, status } })
    : new RoostError('UPSTREAM_ERROR', message, { details: { provider, status } });
}

/** The request was aborted: by its deadline (TIMEOUT) or by the caller (CANCELLED). */
export function abortedError(provider: string, signal: AbortSignal | undefined): RoostError {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new RoostError('TIMEOUT', `${provider} did not answer in time`);
  }
  return new RoostError('CANCELLED', `${provider} request cancelled`);
}

export function unreachableError(provider: string, baseUrl: string, cause: unknown, hint: string): RoostError {
  const why = describeCause(cause);
  return new RoostError('UPSTREAM_ERROR', `cannot reach ${provider} at ${baseUrl}: ${why}; ${hint}`, {
    cause,
    details: { provider, reachable: false },
  });
}

export function isUnreachable(err: unknown): boolean {
  return err instanceof RoostError && (err.details as { reachable?: boolean } | undefined)?.reachable === false;
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as Error & { cause?: unknown }).cause;
    if (inner instanceof Error && 'code' in inner) return `${(inner as Error & { code: string }).code} ${inner.message}`.trim();
    return cause.message;
  }
  return String(cause);
}
