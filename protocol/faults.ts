// Faults of the environment, told apart from bugs: a database that cannot be reached now, a disk that is
// full. Such a failure says "cannot now", never "broken": a request meeting it answers 503 with
// Retry-After (never 500), and an extension that stops for it is started again for as long as it lasts,
// without spending its crash budget (kernel/host/supervisor.ts).

export type EnvironmentalFault = 'database' | 'disk';

/**
 * The exit code of an extension that stops because of its environment (EX_TEMPFAIL of sysexits.h): its
 * database is unreachable or its disk is full. It writes one line saying why to stderr first.
 */
export const EXIT_ENVIRONMENTAL = 75;

/**
 * The exit code of an extension that cannot start because its configuration is wrong (EX_CONFIG of
 * sysexits.h): a setting it refuses. No restart heals that, so the host marks it failed at once instead
 * of spending its crash budget on starts that fail alike. It writes one line saying why to stderr first.
 */
export const EXIT_CONFIG = 78;

/** Seconds a client is told to wait (Retry-After) when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** Socket errors of a connection that could not be made or was cut. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/**
 * PostgreSQL SQLSTATEs of a server going away or not taking connections: class 08 (connection exception),
 * 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 53300 too many connections.
 */
const UNREACHABLE_SQLSTATES = /^(08\d{3}|57P0[123]|53300)$/;
/** What pg and knex say (without a code) when a connection died under them or none could be had. */
const UNREACHABLE_MESSAGES = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|Timeout acquiring a connection|terminating connection due to/i;

// What a full disk or an exhausted quota looks like: node's fs errors, SQLite's "database or disk is full"
// (also met as a failed write of the WAL), PostgreSQL's disk_full (SQLSTATE 53100).
const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);
const DISK_FULL_MESSAGE = /\b(ENOSPC|EDQUOT|SQLITE_FULL)\b|no space left on device|disk quota exceeded|database or disk is full/i;

/** Whether this one error (not what it wraps) says the disk is full. */
export function saysDiskFull(err: unknown): boolean {
  const e = err as ErrorLike;
  if (e === null || typeof e !== 'object') return false;
  return (typeof e.code === 'string' && DISK_FULL_CODES.has(e.code)) || (typeof e.message === 'string' && DISK_FULL_MESSAGE.test(e.message));
}

type ErrorLike = { code?: unknown; message?: unknown; name?: unknown; cause?: unknown; errors?: unknown } | null | undefined;

/**
 * Which environmental fault `err` is, or undefined for anything else. A full disk is recognised in
 * what caused it too; an unreachable database only in the error itself (or the addresses of an
 * AggregateError): a socket error that caused something else, such as a failed fetch to another
 * service, is not the database's.
 */
export function environmentalFault(err: unknown): EnvironmentalFault | undefined {
  if (diskFull(err, 0)) return 'disk';
  const e = err as ErrorLike;
  if (e === null || typeof e !== 'object') return undefined;
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (UNREACHABLE_CODES.has(code) || UNREACHABLE_SQLSTATES.test(code) || e.name === 'KnexTimeoutError' || UNREACHABLE_MESSAGES.test(message)) return 'database';
  // node reports a refused connection to every address of a name as an AggregateError of them.
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((inner) => environmentalFault(inner) === 'database')) return 'database';
  return undefined;
}

function diskFull(err: unknown, depth: number): boolean {
  if (err === null || typeof err !== 'object' || depth > 5) return false;
  return saysDiskFull(err) || diskFull((err as ErrorLike)!.cause, depth + 1);
}

/** Whether the database could not be reached (for a 503 DATABASE_UNAVAILABLE). */
export function isDatabaseUnreachable(err: unknown): boolean {
  return environmentalFault(err) === 'database';
}
