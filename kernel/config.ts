// Server configuration: flags win over environment variables, which win over embedded defaults.
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { validationError } from '../protocol/errors.js';
import { packageRoot } from '../lib/paths.js';
import { DEFAULT_SANDBOX_LIMITS } from './host/sandbox.js';
import type { LogFormat } from './log.js';

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://… moves every database to PostgreSQL (one schema per extension). */
  databaseUrl: string | undefined;
  /** The instance owner's key from ROOST_API_KEY (stored hashed on start). */
  apiKey: string | undefined;
  /** ROOST_SEALING_KEY: the master key extensions seal stored secrets with; unset, <dataDir>/sealing.key. */
  sealingKey: string | undefined;
  /** `required`: loopback callers need a key too. */
  localAuthRequired: boolean;
  /** ROOST_TRUSTED_PROXIES: proxies whose X-Forwarded-For names the caller (http/client-address.ts); none by default. */
  trustedProxies: string[];
  /** Folders whose sub-folders each hold an extension's plugin.toml. */
  extensionDirs: string[];
  /** The pg_dump that POST /api/backup runs on PostgreSQL; "" (ROOST_PG_DUMP="") exports rows instead. */
  pgDump: string;
  /** How often an instance that does not lead a singleton tries to take it (PostgreSQL only). */
  leaderRetryMs: number;
  /** Requests per minute for each key (or remote address); loopback callers without a key are not limited. */
  rateLimitPerMinute: number;
  bodyLimitBytes: number;
  /** How long a rotated-out key keeps working. */
  keyGraceSeconds: number;
  /** Lifetime of new keys; 0 for no expiry. */
  keyTtlDays: number;
  /** Restarts allowed per extension within crashWindowMs before it is marked failed. */
  crashBudget: number;
  crashWindowMs: number;
  /** A lazy extension with no traffic for this long is stopped until its next use; 0: never. */
  extensionIdleSeconds: number;
  /** How long after the start the deferred extensions (activation = "deferred") start, unless used first; 0: with the eager ones. */
  extensionDeferredStartSeconds: number;
  /** Where the line per answered request goes (ROOST_ACCESS_LOG): stderr, a file, or nowhere. */
  accessLog: AccessLogTarget;
  /** ROOST_CHECK_RESPONSES=1: extension routes' success bodies are validated against their declared response schemas (for tests). */
  checkResponses: boolean;
  /** Answers of routes declared cached are kept in the kernel (kernel/http/response-cache.ts): on unless ROOST_RESPONSE_CACHE=off, and off on PostgreSQL (several instances). */
  responseCache: boolean;
  /**
   * ROOST_SQLITE_SYNCHRONOUS: `normal` (the default) or `full`, for extensions' SQLite databases (the
   * kernel's, which holds the audit chain its signed checkpoint vouches for, is always `full`).
   */
  sqliteSynchronous: 'full' | 'normal';
  /** ROOST_LOG_FORMAT: `json` (one JSON object per line; the default when stderr is not a terminal) or `text` (the default on a terminal). */
  logFormat: LogFormat;
  /** Folders projects may live in: every tenant's when ROOST_ALLOWED_ROOTS names them, else the instance owner's. */
  allowedRoots: string[];
  /**
   * With the default roots, each tenant other than the instance's own works in a folder of its own
   * (<data>/workspaces/<tenant>, see tenantWorkspaces); false when ROOST_ALLOWED_ROOTS is set (every tenant shares those).
   */
  folderPerTenant: boolean;
  /** Files agents may never write, whatever the permission mode. */
  protectedFiles: string[];
  /** An extension start fails after this long without progress (CPU time, output), unless its manifest sets start_timeout_ms. */
  extensionStartStallMs: number;
  /** No extension start, however busy, may take longer than this. */
  extensionStartCapMs: number;
  /** How long a request waits for an extension that is starting or restarting before 503 EXTENSION_UNAVAILABLE. */
  extensionWaitMs: number;
  /** SIGTERM/SIGINT: the whole shutdown (drain, extensions, databases) fits in this. */
  shutdownTimeoutMs: number;
  /** Host header names (with an optional port) answered besides the loopback names and the bind host. */
  allowedHosts: string[];
  /** Browser origins (exact, e.g. https://ui.example) that may call the server, with CORS. */
  allowedOrigins: string[];
  // The extension sandbox (kernel/host/sandbox.ts): the bubblewrap binary, whether extensions from
  // outside the server's tree may run without it, and each sandboxed process's resource limits.
  bwrap: string;
  allowUnsandboxed: boolean;
  sandboxLimits: { memoryMb: number; openFiles: number; processes: number };
  /** ROOST_PIDS_CGROUP=off: keep extensions' process limit by counting alone, never making a cgroup. */
  pidsCgroup: boolean;
  /** ROOST_EXTENSION_DISK_MB: every extension's disk budget, over what manifests say (kernel/host/launcher.ts). */
  extensionDiskMb: number | undefined;
  /** Lines an extension may log per second (stderr and `log` messages), and the burst it may save up. */
  extensionLogLimit: { linesPerSecond: number; burst: number };
  /** ROOST_PUBLIC_URL: the server's address as people reach it (behind a proxy), for links such as the device flow's verification_uri. */
  publicUrl: string | undefined;
  /** ROOST_IDEMPOTENCY_TTL_SECONDS: how long an Idempotency-Key's answer is kept (kernel/http/idempotency.ts). */
  idempotencyTtlSeconds: number;
  /** Slow and greedy clients (kernel/http/connection-limits.ts); 0 turns a limit off. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnectionsPerAddress: number;
  maxLoopbackConnections: number;
  /** A WebSocket client with more than this unread is closed (1013). */
  wsMaxBufferedBytes: number;
}

type Flags = Partial<Pick<ServerConfig, 'port' | 'host' | 'dataDir'>> & { extensionDirs?: string[] };

/** `stderrIsTTY`: where the log goes is a terminal (a person reads it: text) or not (a pipeline: JSON lines). */
export type AccessLogTarget = { to: 'off' } | { to: 'stderr' } | { to: 'file'; path: string };

export function loadConfig(flags: Flags = {}, env: NodeJS.ProcessEnv = process.env, stderrIsTTY = process.stderr.isTTY === true): ServerConfig {
  const port = flags.port ?? intFrom(env.ROOST_PORT, 'ROOST_PORT') ?? 3000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw validationError(`port must be 0–65535, got ${port}`);
  const dataDir = resolve(flags.dataDir ?? env.ROOST_DATA_DIR ?? join(homedir(), '.roost', 'data'));
  return {
    port,
    host: flags.host ?? env.ROOST_HOST ?? '127.0.0.1',
    dataDir,
    databaseUrl: env.ROOST_DATABASE_URL || undefined,
    apiKey: env.ROOST_API_KEY || undefined,
    sealingKey: env.ROOST_SEALING_KEY || undefined,
    localAuthRequired: env.ROOST_LOCAL_AUTH === 'required',
    trustedProxies: commaList(env.ROOST_TRUSTED_PROXIES),
    extensionDirs: flags.extensionDirs ?? [join(packageRoot, 'extensions'), ...listFrom(env.ROOST_EXTENSION_DIRS)],
    rateLimitPerMinute: intFrom(env.ROOST_RATE_LIMIT, 'ROOST_RATE_LIMIT') ?? 1200,
    pgDump: env.ROOST_PG_DUMP ?? 'pg_dump',
    leaderRetryMs: Math.max(100, intFrom(env.ROOST_LEADER_RETRY_MS, 'ROOST_LEADER_RETRY_MS') ?? 5_000),
    bodyLimitBytes: 1024 * 1024,
    keyGraceSeconds: intFrom(env.ROOST_KEY_GRACE_SECONDS, 'ROOST_KEY_GRACE_SECONDS') ?? 24 * 3600,
    keyTtlDays: intFrom(env.ROOST_KEY_TTL_DAYS, 'ROOST_KEY_TTL_DAYS') ?? 90,
    crashBudget: intFrom(env.ROOST_CRASH_BUDGET, 'ROOST_CRASH_BUDGET') ?? 5,
    crashWindowMs: 60_000,
    extensionIdleSeconds: intFrom(env.ROOST_EXTENSION_IDLE_SECONDS, 'ROOST_EXTENSION_IDLE_SECONDS') ?? 300,
    extensionDeferredStartSeconds: intFrom(env.ROOST_EXTENSION_DEFERRED_START_SECONDS, 'ROOST_EXTENSION_DEFERRED_START_SECONDS') ?? 30,
    allowedRoots: env.ROOST_ALLOWED_ROOTS ? listFrom(env.ROOST_ALLOWED_ROOTS).map((p) => resolve(p)) : defaultRoots(),
    folderPerTenant: !env.ROOST_ALLOWED_ROOTS,
    accessLog: accessLogFrom(env.ROOST_ACCESS_LOG, stderrIsTTY, dataDir),
    checkResponses: env.ROOST_CHECK_RESPONSES === '1',
    responseCache: env.ROOST_RESPONSE_CACHE !== 'off' && !env.ROOST_DATABASE_URL,
    sqliteSynchronous: sqliteSynchronousFrom(env.ROOST_SQLITE_SYNCHRONOUS),
    logFormat: logFormatFrom(env.ROOST_LOG_FORMAT, stderrIsTTY),
    protectedFiles: ['package.json', 'schema.ts', '.env', ...listFrom(env.ROOST_PROTECTED_FILES)],
    extensionStartStallMs: intFrom(env.ROOST_EXTENSION_START_STALL_MS, 'ROOST_EXTENSION_START_STALL_MS') ?? 60_000,
    extensionStartCapMs: intFrom(env.ROOST_EXTENSION_START_CAP_MS, 'ROOST_EXTENSION_START_CAP_MS') ?? 600_000,
    extensionWaitMs: intFrom(env.ROOST_EXTENSION_WAIT_MS, 'ROOST_EXTENSION_WAIT_MS') ?? 10_000,
    shutdownTimeoutMs: intFrom(env.ROOST_SHUTDOWN_TIMEOUT_MS, 'ROOST_SHUTDOWN_TIMEOUT_MS') ?? 10_000,
    allowedHosts: commaList(env.ROOST_ALLOWED_HOSTS).map((h) => h.toLowerCase()),
    allowedOrigins: commaList(env.ROOST_ALLOWED_ORIGINS).map(exactOrigin),
    bwrap: env.ROOST_BWRAP || 'bwrap',
    allowUnsandboxed: env.ROOST_ALLOW_UNSANDBOXED === '1',
    sandboxLimits: {
      memoryMb: intFrom(env.ROOST_SANDBOX_MEMORY_MB, 'ROOST_SANDBOX_MEMORY_MB') ?? DEFAULT_SANDBOX_LIMITS.memoryMb,
      openFiles: intFrom(env.ROOST_SANDBOX_OPEN_FILES, 'ROOST_SANDBOX_OPEN_FILES') ?? DEFAULT_SANDBOX_LIMITS.openFiles,
      processes: intFrom(env.ROOST_SANDBOX_PROCESSES, 'ROOST_SANDBOX_PROCESSES') ?? DEFAULT_SANDBOX_LIMITS.processes,
    },
    pidsCgroup: env.ROOST_PIDS_CGROUP !== 'off',
    extensionDiskMb: positive(intFrom(env.ROOST_EXTENSION_DISK_MB, 'ROOST_EXTENSION_DISK_MB'), 'ROOST_EXTENSION_DISK_MB'),
    extensionLogLimit: {
      linesPerSecond: positive(intFrom(env.ROOST_EXTENSION_LOG_RATE, 'ROOST_EXTENSION_LOG_RATE'), 'ROOST_EXTENSION_LOG_RATE') ?? 200,
      burst: positive(intFrom(env.ROOST_EXTENSION_LOG_BURST, 'ROOST_EXTENSION_LOG_BURST'), 'ROOST_EXTENSION_LOG_BURST') ?? 1000,
    },
    publicUrl: env.ROOST_PUBLIC_URL ? publicUrlFrom(env.ROOST_PUBLIC_URL) : undefined,
    idempotencyTtlSeconds: Math.max(1, intFrom(env.ROOST_IDEMPOTENCY_TTL_SECONDS, 'ROOST_IDEMPOTENCY_TTL_SECONDS') ?? 86_400),
    headersTimeoutMs: intFrom(env.ROOST_HEADERS_TIMEOUT_MS, 'ROOST_HEADERS_TIMEOUT_MS') ?? 10_000,
    requestTimeoutMs: intFrom(env.ROOST_REQUEST_TIMEOUT_MS, 'ROOST_REQUEST_TIMEOUT_MS') ?? 60_000,
    maxConnectionsPerAddress: intFrom(env.ROOST_MAX_CONNECTIONS_PER_ADDRESS, 'ROOST_MAX_CONNECTIONS_PER_ADDRESS') ?? 256,
    maxLoopbackConnections: intFrom(env.ROOST_MAX_LOOPBACK_CONNECTIONS, 'ROOST_MAX_LOOPBACK_CONNECTIONS') ?? 4_096,
    wsMaxBufferedBytes: Math.max(65_536, intFrom(env.ROOST_WS_MAX_BUFFERED_BYTES, 'ROOST_WS_MAX_BUFFERED_BYTES') ?? 4 * 1024 * 1024),
  };
}

/**
 * The environment variables the kernel's configuration reads, found by reading a configuration from an
 * empty environment that notes each name asked for: no manifest may declare one as its secret or setting.
 */
export const KERNEL_VARIABLES: ReadonlySet<string> = (() => {
  const read = new Set<string>();
  loadConfig({}, new Proxy({}, { get: (_env, name) => void (typeof name === 'string' && read.add(name)) }), false);
  return read;
})();

/** Where a developer expects projects: the home folder, the folder the server started in, the system temp folder. */
function defaultRoots(): string[] {
  return [...new Set([homedir(), process.cwd(), tmpdir()])];
}

/**
 * `off`, `stderr` (also `on`) or a file path. Unset: stderr for a log pipeline, but a terminal is kept for
 * what a person needs (the URL, warnings, errors), so there the lines go to <data>/logs/access.log.
 */
function accessLogFrom(value: string | undefined, stderrIsTTY: boolean, dataDir: string): AccessLogTarget {
  if (value === 'off') return { to: 'off' };
  if (value === 'stderr' || value === 'on') return { to: 'stderr' };
  if (value) return { to: 'file', path: resolve(value) };
  return stderrIsTTY ? { to: 'file', path: join(dataDir, 'logs', 'access.log') } : { to: 'stderr' };
}

function logFormatFrom(value: string | undefined, stderrIsTTY: boolean): LogFormat {
  if (value === undefined || value === '') return stderrIsTTY ? 'text' : 'json';
  if (value === 'text' || value === 'json') return value;
  throw validationError(`ROOST_LOG_FORMAT must be "text" or "json", got "${value}"`);
}

function sqliteSynchronousFrom(value: string | undefined): 'full' | 'normal' {
  if (value === undefined || value === '' || value === 'normal') return 'normal';
  if (value === 'full') return 'full';
  throw validationError(`ROOST_SQLITE_SYNCHRONOUS must be "normal" or "full", got "${value}"`);
}

function intFrom(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw validationError(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/** A limit of 0 would stop everything: refused at start. */
function positive(value: number | undefined, name: string): number | undefined {
  if (value === 0) throw validationError(`${name} must be at least 1`);
  return value;
}

function listFrom(value: string | undefined): string[] {
  return (value ?? '').split(/[,:]/).map((s) => s.trim()).filter(Boolean);
}

/** Hosts and origins hold colons, so these lists are split on commas only. */
function commaList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** An origin is scheme://host[:port] and nothing more; anything else would never match a browser's Origin. */
function publicUrlFrom(value: string): string {
  try {
    const url = new URL(value);
    if (/^https?:$/.test(url.protocol)) return url.origin;
  } catch {
    // answered below
  }
  throw validationError(`ROOST_PUBLIC_URL must be an http(s) URL such as https://roost.example.com, got "${value}"`);
}

function exactOrigin(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username) {
    throw validationError(`ROOST_ALLOWED_ORIGINS entries must be origins such as https://ui.example or http://localhost:5173, got "${value}"`);
  }
  return url.origin;
}
