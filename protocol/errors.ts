// The one error module of the house: every failure that crosses a boundary (REST, WebSocket,
// protocol response, CLI --json envelope) is a RoostError with a machine code and an HTTP status.
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnreachable, saysDiskFull } from './faults.js';

export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  BAD_JSON: 400,
  AUTH_REQUIRED: 401,
  FORBIDDEN: 403,
  INVALID_API_KEY: 403,
  FORBIDDEN_ORIGIN: 403,
  /** A create that would pass a limit of the tenant's plan; details.limit names it. */
  PLAN_LIMIT: 403,
  /** The tenant is past its payment grace period: it may read, not change anything. */
  TENANT_READ_ONLY: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  /** An Idempotency-Key whose first request is still being served. */
  IDEMPOTENCY_KEY_IN_USE: 409,
  PAYLOAD_TOO_LARGE: 413,
  /** An Idempotency-Key sent again with another method, path or body. */
  IDEMPOTENCY_KEY_MISMATCH: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  /** A route answered a body its declared response schema refuses (only checked with ROOST_CHECK_RESPONSES=1). */
  RESPONSE_MISMATCH: 500,
  UPSTREAM_ERROR: 502,
  EXTENSION_UNAVAILABLE: 503,
  /** The database cannot be reached now (down, restarting, refusing connections); details.retryAfter says when to try again. */
  DATABASE_UNAVAILABLE: 503,
  /** A mutation ran, or may have, but its audit entry could not be written (the database did not answer). */
  AUDIT_UNAVAILABLE: 503,
  /** A connection past ROOST_MAX_CONNECTIONS_PER_ADDRESS for its address. */
  TOO_MANY_CONNECTIONS: 503,
  EXTENSION_TIMEOUT: 504,
  /** The disk (or quota) under a database or data file is full: nothing more can be stored until space is freed. */
  STORAGE_FULL: 507,
  // protocol- and CLI-level codes (never sent as an HTTP status of their own)
  USAGE: 400,
  CAPABILITY_DENIED: 403,
  UNKNOWN_TYPE: 400,
  TIMEOUT: 504,
  CANCELLED: 499,
  PROTOCOL_ERROR: 502,
  PORT_IN_USE: 500,
  PORT_DENIED: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS | (string & {});

export class RoostError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, options: { status?: number; details?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RoostError';
    this.code = code;
    this.status = options.status ?? (ERROR_STATUS as Record<string, number>)[code] ?? 500;
    this.details = options.details;
  }

  /** The JSON body every REST error carries. */
  toBody(): { error: string; code: string; details?: unknown } {
    return this.details === undefined
      ? { error: this.message, code: this.code }
      : { error: this.message, code: this.code, details: this.details };
  }
}

export const validationError = (message: string, details?: unknown) =>
  new RoostError('VALIDATION_ERROR', message, { details });
export const notFound = (what: string) => new RoostError('NOT_FOUND', `${what} not found`);
export const forbidden = (message: string) => new RoostError('FORBIDDEN', message);
export const conflict = (message: string) => new RoostError('CONFLICT', message);
/** 403 PLAN_LIMIT: a create that would take the tenant past `limit` of its plan. */
export const planLimit = (plan: string, limit: string, allowed: number, current: number) =>
  new RoostError('PLAN_LIMIT', `the ${plan} plan allows ${allowed} ${limit}; the tenant has ${current}: upgrade the plan or remove some first`, { details: { limit, allowed, current, plan } });

/** 507 STORAGE_FULL: the write failed, and nothing of it was stored; it works again once space is freed. */
export const storageFull = (cause?: unknown) =>
  new RoostError('STORAGE_FULL', 'the server has no disk space left for this write: nothing of it was stored; retry once space is freed', { cause });

/** 503 for a database that cannot be reached now: "cannot now", never a 500. */
export const databaseUnavailable = (cause?: unknown) =>
  new RoostError('DATABASE_UNAVAILABLE', 'the database cannot be reached now; try again shortly', { details: { retryAfter: DATABASE_RETRY_AFTER_SECONDS }, cause });

/** The seconds a 429 or 503 tells the client to wait (its Retry-After), when it says. */
export function retryAfterOf(error: RoostError): number | undefined {
  const retryAfter = (error.details as { retryAfter?: unknown } | undefined)?.retryAfter;
  return (error.status === 429 || error.status === 503) && typeof retryAfter === 'number' ? retryAfter : undefined;
}

/**
 * Turns anything thrown into a RoostError: a full disk becomes STORAGE_FULL (507), an unreachable
 * database DATABASE_UNAVAILABLE (503), other unknown failures INTERNAL without leaking internals.
 */
export function toRoostError(err: unknown): RoostError {
  if (err instanceof RoostError) return err;
  if (isDiskFull(err)) return storageFull(err);
  if (isDatabaseUnreachable(err)) return databaseUnavailable(err);
  return new RoostError('INTERNAL', 'internal error', { cause: err });
}

/** A log line for a full disk: the failing error's code, not its message (which may quote the data written). */
export function diskFullLine(err: unknown): string {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code } = e as { code?: unknown };
    if (typeof code === 'string' && code !== 'STORAGE_FULL') return `a write failed: the disk is full (${code})`;
  }
  return 'a write failed: the disk is full';
}

/** True when `err` (or an error it wraps) says the disk is full. */
export function isDiskFull(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof RoostError) return e.code === 'STORAGE_FULL';
    if (saysDiskFull(e)) return true;
  }
  return false;
}
