// What a plugin may ask of its host. The CLI and the server each provide their own implementation;
// the plugin process checks capabilities before any of these is reached.
import type { AuthContext, ExecResult } from '../../protocol/messages.js';
import type { CallReply } from '../http/dispatch.js';
import type { LogFields } from '../log.js';
import type { Tracing } from '../tracing/tracing.js';

export interface ExecRequest {
  command: string;
  cwd?: string;
  /** Seconds; default 30, at most 300 (streamed: default 3600, at most 86400). */
  timeout?: number;
  /** Aborted when the plugin that asked is gone: the command is stopped with it. */
  signal?: AbortSignal;
  /** Streamed exec: each chunk of output as it comes (the result then carries no output). */
  onOutput?: (stream: 'stdout' | 'stderr', data: string) => void;
}

export interface AskRequest {
  kind: 'prompt' | 'confirm' | 'select' | 'multi_select';
  message: string;
  /** multi_select: the options chosen by default. */
  default?: unknown;
  options?: string[];
}

export interface ProgressUpdate {
  message?: string;
  current?: number;
  total?: number;
  done?: boolean;
}

export interface CallRequest {
  method: string;
  path: string;
  body?: unknown;
  /** The body as raw bytes from the calling extension, forwarded undecoded. */
  attachment?: Buffer;
  auth: AuthContext;
  /** Only routes reachable over HTTP: an `internal = true` route answers 404 as it would there. */
  public?: boolean;
  /** The X-Request-Id of the HTTP request the calling extension serves, if it serves one. */
  httpRequestId?: string;
}

export interface TokenRequest {
  tenantId: string;
  agentId: string;
  sessionId: string | null;
  /** Privileged MCP tools this token may call (the agent's mcp_tool_permissions). */
  tools: string[];
  ttlSeconds?: number;
}

export interface HostServices {
  exec(request: ExecRequest): Promise<ExecResult>;
  store(key: string, value: string): Promise<void>;
  load(key: string): Promise<string | null>;
  metadata(keys: string[] | undefined): Promise<Record<string, unknown>>;
  ask(request: AskRequest): Promise<unknown>;
  output(text: string): void;
  log(level: string, message: string, fields?: LogFields): void;
  progress(update: ProgressUpdate): void;
  // Server extensions only; a CLI host leaves them out and such messages are refused.
  /** The server's tracing, when it traces: host → extension messages carry a trace context and become spans. */
  tracing?: Tracing;
  emit?(topic: string, payload: unknown, tenantId: string | null): void;
  call?(request: CallRequest): Promise<CallReply>;
  secret?(name: string): Promise<string | null>;
  audit?(entry: { action: string; resource: string; detail: unknown; tenantId: string | null }): Promise<void>;
  wsSend?(clientId: string, message: Record<string, unknown>): void;
  token?(request: TokenRequest): Promise<string>;
  /** Start this extension with the server (it holds running work), or no longer. */
  wakeOnStart?(wake: boolean): Promise<void>;
  /** Whether this instance leads the extension's singleton `name` (see kernel/leader.ts). */
  leader?(name: string): Promise<boolean>;
  /** The kernel's metrics as prom-client reads them (capability `metrics`): a sample's, or a scrape's for /metrics. */
  systemMetrics?(scrape: boolean): Promise<unknown>;
  /** The tools `/mcp` lists, as its tools/list answers them (for a client handed them rather than asking). */
  mcpTools?(): Promise<unknown>;
  /** The routes the loaded extensions declare whose path starts with `prefix` (what `call` can reach). */
  routes?(prefix: string): Promise<Array<{ method: string; path: string; extension: string }>>;
  /** Every route a client can reach, with what its OpenAPI entry says (kernel/http/route-declarations.ts; capability `route_table`). */
  routeTable?(): Promise<unknown>;
  /** The loaded extensions as their manifests describe them: name, description, MCP tools (their routes: `routes`). */
  extensions?(): Promise<Array<{ name: string; description: string; tools: string[] }>>;
  /** A graceful restart of the whole server, shortly after answering (capability `restart`). */
  restart?(reason: string): Promise<void>;
  /** How many items wait in one of the extension's queues now (a gauge in /metrics). */
  queueDepth?(queue: string, depth: number): void;
  /** A tenant's name, creation time and read-only state; NOT_FOUND for none (capability `tenants`). */
  tenant?(tenantId: string): Promise<unknown>;
  /** Every tenant's values of tenants-table columns the kernel no longer uses, for their new owner (capability `tenants`). */
  legacyTenantColumns?(columns: string[]): Promise<Array<Record<string, unknown>>>;
  /** Makes a tenant read only from `at` (null: writable again), for the reason given (capability `tenants`). */
  setTenantReadOnly?(tenantId: string, change: { at: string | null; reason?: string | null }): Promise<unknown>;
  /** A signed grant to mint a key for the caller of a request in flight, at most their role (capability `keys`, kernel/auth/key-grants.ts). */
  keyGrant?(caller: AuthContext, role: string, ttlSeconds: number, audience?: string): Promise<unknown>;
  /** The key a grant promised (capability `keys`); a grant bound to an audience makes a key living `ttlSeconds`. */
  mintKey?(grant: string, label: string, ttlSeconds?: number): Promise<unknown>;
  /** Revokes a key this extension minted (capability `keys`); false when it minted no such live key. */
  revokeKey?(keyHash: string): Promise<unknown>;
}
