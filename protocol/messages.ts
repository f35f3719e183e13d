// The cli-v1 message vocabulary (see docs/protocol.md). Every message has a `type`; a message that
// expects an answer carries a string `id` and is answered by exactly one `response`.

export const PROTOCOL = 'cli-v1';
/** fledge's protocol, spoken by the CLI host as a dialect of cli-v1 (kernel/host/dialects/). */
export const FLEDGE_PROTOCOL = 'fledge-v1';

export interface WireError {
  code: string;
  message: string;
  /** What the error's HTTP body carries as `details` (PLAN_LIMIT's limit, a retryAfter), passed on as it is. */
  details?: unknown;
}

export interface ResponseMessage {
  type: 'response';
  id: string;
  value?: unknown;
  error?: WireError;
}

export interface ProjectInfo {
  name: string;
  root: string;
  language: string | null;
  /** `remote` is the remote's name (origin), `remote_url` its URL without credentials; both null
   * for a plugin without the `metadata` grant. */
  git: { branch: string | null; dirty: boolean; remote: string | null; remote_url: string | null } | null;
}

export interface StorageInfo {
  client: 'sqlite3' | 'pg';
  connection: string | { filename: string };
  /** PostgreSQL schema that belongs to the extension (pg only). */
  schema?: string;
  /**
   * SQLite only: `full` (the default) syncs the WAL to disk at every commit; `normal` leaves that to the
   * checkpoints, so a killed process loses nothing and a power cut may lose the last commits.
   */
  synchronous?: 'full' | 'normal';
}

export interface InitMessage {
  type: 'init';
  protocol: typeof PROTOCOL | typeof FLEDGE_PROTOCOL;
  args: string[];
  /** The manifest command that was run (a binary may serve several); absent for hooks and extensions. */
  command?: string;
  project: ProjectInfo | null;
  plugin: { name: string; version: string; dir: string };
  host: { name: string; version: string };
  capabilities: Record<string, boolean>;
  /** fledge-v1 only: the host's version, under the name fledge plugins read it. */
  fledge?: { version: string };
  /** Server extensions only. */
  storage?: StorageInfo;
  config?: Record<string, unknown>;
}

export interface AuthContext {
  tenantId: string;
  role: 'owner' | 'operator' | 'viewer';
  /** Who acts: a key hash, `local`, or `agent:<id>`. */
  actor: string;
}

/**
 * W3C trace context (https://www.w3.org/TR/trace-context/) of the span a message continues: sent on
 * `request`, `tool` and `call` only while the sender traces (docs/protocol.md, "Trace context"); a peer
 * that does not trace ignores it.
 */
export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/** Plugin → host, no answer: spans the plugin ended, exported by the host (sent only to a host that sent a trace context). */
export interface SpansMessage {
  type: 'spans';
  spans: WireSpan[];
}

/** One ended span as a `spans` message carries it: ids in lower-case hex, times [seconds, nanoseconds] since the epoch. */
export interface WireSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OpenTelemetry's SpanKind: 0 internal, 1 server, 2 client, 3 producer, 4 consumer. */
  kind?: number;
  start: [number, number];
  end: [number, number];
  attributes?: Record<string, string | number | boolean>;
  /** 0 unset, 1 ok, 2 error. */
  status?: { code: number; message?: string };
}

export interface RequestMessage {
  type: 'request';
  id: string;
  method: string;
  path: string;
  /** The declared route that matched: "GET /api/projects/:id". */
  route: string;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  body: unknown;
  auth: AuthContext;
  /** The HTTP request's headers, lower-cased, for raw routes only (signature checks); never credentials. */
  headers?: Record<string, string>;
  trace?: TraceContext;
}

/**
 * The route of the health request the kernel's self-test sends every extension (never reachable over
 * HTTP: no extension may declare it). The TypeScript frame answers it by checking its own store.
 */
export const HEALTH_ROUTE = 'GET /_health';

/**
 * The route of the request the kernel's self-test sends each extension whose manifest says
 * `self_checks = true` (never reachable over HTTP). Its body is a SelftestRequest; the extension answers
 * `{checks}`: the end-to-end checks it ran (the kernel's own checks are its stores, audit and health).
 * Its body and checks: protocol/selftest.ts.
 */
export const SELFTEST_ROUTE = 'POST /_selftest';

/** A reply body that is already JSON text: sent as it is, never parsed or serialised again. */
export class RawJson {
  constructor(readonly text: string) {}
}

export interface RouteReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** The body as raw bytes sent after the reply frame, instead of `body` (see framing.ts). */
  attachment?: Buffer | string;
  /** How `attachment` is encoded: JSON (the default) or text. */
  encoding?: 'json' | 'text';
  /** The body follows as `route_chunk` messages naming the request, until one says `end` (docs/protocol.md, Streamed replies). */
  stream?: boolean;
}

export interface ToolCaller {
  agentId: string | null;
  sessionId: string | null;
  tenantId: string;
}

export interface ToolMessage {
  type: 'tool';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  caller: ToolCaller;
  trace?: TraceContext;
}

export interface ToolReply {
  content: Array<{ type: 'text'; text: string } | Record<string, unknown>>;
  isError?: boolean;
}

export interface WsMessage {
  type: 'ws';
  clientId: string;
  message: Record<string, unknown>;
  auth: AuthContext;
}

export interface EventMessage {
  type: 'event';
  topic: string;
  payload: unknown;
  tenantId: string | null;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
  /** True when output past the capture limit was dropped (the head is kept). */
  truncated?: boolean;
  /** The exec asked for `stream: true`: its output came as `exec_output` messages, none is here. */
  streamed?: boolean;
}

/** Host → plugin, for an `exec` sent with `stream: true`: a chunk of its output as it came. */
export interface ExecOutputMessage {
  type: 'exec_output';
  /** The id of the exec request this output belongs to. */
  exec: string;
  stream: 'stdout' | 'stderr';
  data: string;
}

type JsonSchema = Record<string, unknown>;

/** One route a client can reach, as `route_table` answers it: its owner and its OpenAPI declaration, schemas self-contained. */
export interface DeclaredRoute {
  owner: string;
  method: string;
  path: string;
  public: boolean;
  raw: boolean;
  doc: {
    summary?: string;
    query?: JsonSchema;
    request?: JsonSchema;
    response?: JsonSchema;
    status?: number;
    /** The success body's media type when it is not JSON. */
    contentType?: string;
    /** Error answers of another shape than {error, code}. */
    responses?: Record<string, { description: string; schema: JsonSchema }>;
  };
}

/** Host → plugin: the answer to `route_table`. */
export interface RouteTableReply {
  routes: DeclaredRoute[];
  /** OpenAPI path items of the kernel's doors that are no REST route (/mcp, /ws), by path. */
  doors: Record<string, Record<string, JsonSchema>>;
  /** The body every error answers (protocol/errors.ts). */
  errorSchema: JsonSchema;
}

/** Plugin → host message types and the capability each needs (undefined: always allowed). */
export const CAPABILITY_OF: Record<string, string | undefined> = {
  exec: 'exec',
  store: 'store',
  load: 'store',
  metadata: 'metadata',
  prompt: undefined,
  confirm: undefined,
  select: undefined,
  output: undefined,
  log: undefined,
  progress: undefined,
  emit: 'events',
  call: 'call',
  secret: 'secrets',
  audit: undefined,
  ws_send: 'events',
  token: 'tokens',
  mcp_tools: 'tokens',
  routes: 'call',
  route_table: 'route_table',
  extensions: 'call',
  ready: undefined,
  wake_on_start: undefined,
  leader: undefined,
  system_metrics: 'metrics',
  restart: 'restart',
  queue_depth: undefined,
  tenant: 'tenants',
  legacy_tenant_columns: 'tenants',
  set_tenant_read_only: 'tenants',
  key_grant: 'keys',
  mint_key: 'keys',
  revoke_key: 'keys',
  route_chunk: undefined,
  spans: undefined,
};

/** Every capability a manifest may ask for. */
export const KNOWN_CAPABILITIES = [
  'exec', 'store', 'metadata', 'network', 'filesystem', 'db', 'events', 'call', 'secrets', 'tokens', 'restart', 'metrics', 'tenants', 'route_table', 'keys',
] as const;
