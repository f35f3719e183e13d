// The plugin side of cli-v1: what an extension or TypeScript plugin asks of its host.
import { AsyncLocalStorage } from 'node:async_hooks';
import { RoostError } from '../protocol/errors.js';
import { decodeAttachment } from '../protocol/framing.js';
import type { Peer } from '../protocol/peer.js';
import type { AuthContext, ExecOutputMessage, ExecResult, TraceContext, WireSpan } from '../protocol/messages.js';
import type { ToolSpec } from '../lib/providers/types.js';
import type { FrameTracing } from './tracing.js';

type Role = AuthContext['role'];

/** `public: true` reaches only routes served over HTTP too (never `internal = true` ones). */
export type CallAs = ({ requestId: string } | { tenantId: string }) & { public?: boolean };

/** What `HostClient.call` answers: the route's status and body. */
export type RouteAnswer<T = Record<string, any> | null> = { status: number; body: T };

/**
 * Another extension's refusal passed on with its status and code; a route no loaded extension serves
 * (404 ROUTE_NOT_FOUND) says which extension, `provider`, to load.
 */
export function upstreamError(reply: RouteAnswer<unknown>, what: string, provider: string): RoostError {
  const body = reply.body as { code?: unknown; error?: unknown } | null;
  if (reply.status === 404 && body?.code === 'ROUTE_NOT_FOUND') {
    return new RoostError('EXTENSION_UNAVAILABLE', `${what} needs the ${provider} extension, which is not loaded; load it and retry`);
  }
  const code = typeof body?.code === 'string' ? body.code : 'UPSTREAM_ERROR';
  const why = typeof body?.error === 'string' ? body.error : `status ${reply.status}`;
  return new RoostError(code, `${what} failed: ${why}`, { status: reply.status });
}

export class HostClient {
  /** The id of the request, tool call, WebSocket message or event whose handling is running now. */
  readonly serving = new AsyncLocalStorage<string>();

  /** The output handler of each streamed exec in flight, by its request id. */
  private readonly execStreams = new Map<string, (stream: 'stdout' | 'stderr', data: string) => void>();
  private execStreamCounter = 0;
  /** The last depth sent for each queue. */
  private readonly queueDepths = new Map<string, number>();
  /** Set by the extension frame once a frame carried a trace context (the host traces): see sdk/tracing.ts. */
  tracing: FrameTracing | undefined;

  constructor(private readonly peer: Peer) {
    peer.handle('exec_output', (message) => {
      const { exec, stream, data } = message as unknown as ExecOutputMessage;
      this.execStreams.get(exec)?.(stream, data);
    });
  }

  exec(command: string, options: { cwd?: string; timeout?: number } = {}): Promise<ExecResult> {
    return this.peer.request({ type: 'exec', command, ...options });
  }

  /**
   * A long-running command whose output comes as it is printed, to `onOutput`; resolves with its exit
   * code once it ends (timeout in seconds: default 3600, at most 86400). No request time limit applies.
   */
  execStream(command: string, onOutput: (stream: 'stdout' | 'stderr', data: string) => void, options: { cwd?: string; timeout?: number } = {}): Promise<ExecResult> {
    const id = `exec-stream-${++this.execStreamCounter}`;
    this.execStreams.set(id, onOutput);
    return this.peer.request<ExecResult>({ type: 'exec', command, stream: true, ...options }, { id, timeoutMs: 0 })
      .finally(() => this.execStreams.delete(id));
  }

  async store(key: string, value: string): Promise<void> {
    await this.peer.request({ type: 'store', key, value });
  }

  load(key: string): Promise<string | null> {
    return this.peer.request({ type: 'load', key });
  }

  metadata(keys?: string[]): Promise<Record<string, unknown>> {
    return this.peer.request({ type: 'metadata', ...(keys ? { keys } : {}) });
  }

  /** Another extension's route, as the caller of the request being served or for a tenant; `signal` stops the wait (CANCELLED). */
  async call<T = unknown>(method: string, path: string, body: unknown, as: CallAs, signal?: AbortSignal): Promise<{ status: number; body: T }> {
    // Bodies travel as attachments both ways, so the kernel passes them on without decoding them.
    const attachment = body === undefined || body === null ? undefined : JSON.stringify(body);
    const trace = this.traceContext();
    const reply = await this.peer.request<{ status: number; body?: T; attachment?: Buffer; encoding?: string }>({ type: 'call', method, path, ...as, ...(trace ? { trace } : {}) }, { attachment, signal });
    if (!reply.attachment) return { status: reply.status, body: (reply.body ?? null) as T };
    return { status: reply.status, body: decodeAttachment(reply.attachment, reply.encoding === 'text' ? 'text' : 'json') as T };
  }

  secret(name: string): Promise<string | null> {
    return this.peer.request({ type: 'secret', name });
  }

  /** A bearer token for /mcp scoped to an agent (and session), carrying its privileged tool grants. */
  token(request: { tenantId: string; agentId: string; sessionId?: string | null; tools?: string[]; ttlSeconds?: number }): Promise<string> {
    return this.peer.request({ type: 'token', ...request });
  }

  /** Whether this instance leads the singleton `name` now (ask on every tick: leadership can move). */
  async leader(name: string): Promise<boolean> {
    return (await this.peer.request({ type: 'leader', name })) as boolean;
  }

  /** The kernel's metrics as prom-client's JSON (capability `metrics`): a sample's, or with `scrape` every figure /metrics shows. */
  systemMetrics<T = unknown>(options: { scrape?: boolean } = {}): Promise<T> {
    return this.peer.request({ type: 'system_metrics', ...(options.scrape ? { scrape: true } : {}) });
  }

  /** A graceful restart of the whole server (capability `restart`). */
  async restart(reason: string): Promise<void> {
    await this.peer.request({ type: 'restart', reason });
  }

  /**
   * How many items wait in one of this extension's queues now (`queue_depth`: a gauge in /metrics and a
   * series of the operations extension). Call it wherever the number may have moved: it is sent only
   * when it differs from the last one sent for that queue.
   */
  queueDepth(queue: string, depth: number): void {
    if (this.queueDepths.get(queue) === depth) return;
    this.queueDepths.set(queue, depth);
    this.peer.notify({ type: 'queue_depth', queue, depth });
  }

  /** The tools `/mcp` lists (capability `tokens`): a runner handed them needs no tools/list of its own. */
  mcpTools(): Promise<ToolSpec[]> {
    return this.peer.request({ type: 'mcp_tools' });
  }

  /**
   * The routes the loaded extensions declare under `prefix` (capability `call`): which extensions serve
   * a contract (the chat bridges' /api/internal/bridges/<name>/…), found rather than listed by hand.
   */
  routes(prefix: string): Promise<Array<{ method: string; path: string; extension: string }>> {
    return this.peer.request({ type: 'routes', prefix });
  }

  /** Every route a client can reach, with its OpenAPI entry, the kernel's doors and its Error body (capability `route_table`). */
  routeTable<T = unknown>(): Promise<T> {
    return this.peer.request({ type: 'route_table' });
  }

  /** The loaded extensions (capability `call`): name, description, MCP tool names (their routes: `routes`). */
  extensions(): Promise<Array<{ name: string; description: string; tools: string[] }>> {
    return this.peer.request({ type: 'extensions' });
  }

  /** A tenant's name, creation time and read-only state; 404 for a tenant that does not exist (capability `tenants`). */
  tenant(tenantId: string): Promise<{ id: string; org: string; createdAt: string; readOnly: boolean; readOnlyAt: string | null }> {
    return this.peer.request({ type: 'tenant', tenantId });
  }

  /**
   * Every tenant's values of the named columns the kernel's tenants table still holds from before their
   * owner was an extension (capability `tenants`): read once, to take them over. A column it lacks is left out.
   */
  legacyTenantColumns(columns: string[]): Promise<Array<{ id: string } & Record<string, unknown>>> {
    return this.peer.request({ type: 'legacy_tenant_columns', columns });
  }

  /**
   * Makes a tenant read only from `at` (null: writable again), saying why (capability `tenants`). While it
   * holds, only the routes declared writable_when_read_only change anything for it.
   */
  setTenantReadOnly(tenantId: string, at: string | null, reason?: string): Promise<{ at: string | null; reason: string | null; readOnly: boolean }> {
    return this.peer.request({ type: 'set_tenant_read_only', tenantId, at, ...(reason === undefined ? {} : { reason }) });
  }

  /**
   * A signed promise of an API key for the caller of the request being served, in their tenant with at
   * most their role, valid `ttlSeconds` (capability `keys`); `mintKey` makes the key when it is collected.
   * With an `audience` (a resource URL, RFC 8707) the grant may live 30 days and be used again, each
   * key it mints accepted at that resource only.
   */
  keyGrant(requestId: string, role: Role, ttlSeconds: number, audience?: string): Promise<{ grant: string; tenantId: string; role: Role; expiresAt: string }> {
    return this.peer.request({ type: 'key_grant', requestId, role, ttlSeconds, ...(audience === undefined ? {} : { audience }) });
  }

  /** The key a grant promised, made now (capability `keys`); an audience-bound one lives `ttlSeconds` (1 h unless said). */
  mintKey(grant: string, label: string, ttlSeconds?: number): Promise<{ key: string; keyHash: string; tenantId: string; role: Role; expiresAt: string | null; audience: string | null }> {
    return this.peer.request({ type: 'mint_key', grant, label, ...(ttlSeconds === undefined ? {} : { ttlSeconds }) });
  }

  /** Revokes a key this extension minted (capability `keys`). */
  revokeKey(keyHash: string): Promise<{ revoked: boolean }> {
    return this.peer.request({ type: 'revoke_key', keyHash });
  }

  /** Ask to be started with the server while holding work that must go on (server extensions only). */
  async wakeOnStart(wake: boolean): Promise<void> {
    await this.peer.request({ type: 'wake_on_start', wake });
  }

  emit(topic: string, payload: unknown, tenantId: string | null): void {
    this.peer.notify({ type: 'emit', topic, payload, tenantId });
  }

  wsSend(clientId: string, message: { type: string } & Record<string, unknown>): void {
    this.peer.notify({ type: 'ws_send', clientId, message });
  }

  /** Recorded under the tenant of what is being served (the host knows it; an extension cannot name another). */
  audit(action: string, resource: string, detail: unknown): void {
    const context = this.serving.getStore();
    this.peer.notify({ type: 'audit', action, resource, detail, ...(context ? { context } : {}) });
  }

  output(text: string): void {
    this.peer.notify({ type: 'output', text });
  }

  /** Logged by the host with the id of the HTTP request being served, when there is one. */
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void {
    const context = this.serving.getStore();
    this.peer.notify({ type: 'log', level, message, ...(context ? { context } : {}) });
  }

  progress(update: { message?: string; current?: number; total?: number; done?: boolean }): void {
    this.peer.notify({ type: 'progress', ...update });
  }

  /** The trace context of what is being served, to carry to a process of the extension's own (undefined when the host does not trace). */
  traceContext(): TraceContext | undefined {
    return this.tracing?.current();
  }

  /** Spans ended in a process of the extension's own (a session's runner), for the host to export with its own. */
  sendSpans(spans: WireSpan[]): void {
    if (spans.length > 0) this.peer.notify({ type: 'spans', spans });
  }
}
