// Serving a route an extension declared: from an HTTP request or from another extension's `call`.
import { Readable } from 'node:stream';
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { decodeAttachment } from '../../protocol/framing.js';
import { RawJson, type AuthContext, type RequestMessage, type RouteReply } from '../../protocol/messages.js';
import type { HttpMethod } from '../host/manifest.js';
import type { ExtensionRegistry } from '../host/registry.js';
import { ResponseCache } from './response-cache.js';
import { checkResponse } from './response-check.js';
import type { RouteMatch, RouteTable } from './route-table.js';

export interface DispatchInput {
  /** Refuse `internal = true` routes, as HTTP does (a call made on behalf of a user's stored request). */
  public?: boolean;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  body: unknown;
  /** The body's raw bytes, forwarded as they came (never parsed here); `body` is ignored then. */
  attachment?: Buffer;
  auth: AuthContext;
  /** Request headers passed on to raw routes (see RequestMessage.headers). */
  headers?: Record<string, string>;
  /** The query as it came: a read (over HTTP or an extension's call) of a cached route may then be answered from the cache. */
  querystring?: string;
  /** The X-Request-Id of the HTTP request this serves (directly or through calls): the extension's log lines carry it. */
  httpRequestId?: string;
}

/** What an extension's route answered; a reply carried as an attachment is passed on undecoded. */
export type CallReply = { status: number; body?: unknown; attachment?: Buffer | string; encoding?: 'json' | 'text' };

/**
 * Embedding hook: a route served inside the kernel process instead of by an extension. Only a program
 * that embeds the kernel can add one (startServer's second argument; the isolation benchmark does);
 * no configuration enables it. It is matched, authenticated, rate-limited, audited and body-parsed
 * like an extension route and dispatched at the same point, so the only difference is the process boundary.
 */
export interface EmbeddedRoute {
  method: HttpMethod;
  path: string;
  /** Gets the very message an extension would receive, and answers as an extension would. */
  handler(request: RequestMessage): Promise<RouteReply> | RouteReply;
}

/** Route-table owner of embedded routes; extension names cannot contain ':', so it never clashes. */
export const EMBEDDED_OWNER = 'kernel:embedded';

export class Dispatcher {
  private readonly embedded = new Map<string, EmbeddedRoute['handler']>();
  private embeddedRequests = 0;

  constructor(
    private readonly routes: RouteTable,
    private readonly registry: ExtensionRegistry,
    /** ROOST_CHECK_RESPONSES: validate success bodies against their declared response schemas (response-check.ts). */
    private readonly checkResponses: boolean,
    /** Answers kept for routes declared cached (response-cache.ts); forgotten here on every write to their owner. */
    readonly cache: ResponseCache,
    /** Whether an extension is cold and has stored nothing yet: its [server.empty_answers] then answer for it. */
    private readonly emptyAndCold: (owner: string) => boolean,
  ) {}

  /** See EmbeddedRoute; `reserved` tells which paths the kernel itself serves. */
  embed(routes: EmbeddedRoute[], reserved: (method: string, path: string) => boolean): void {
    this.routes.addAll(EMBEDDED_OWNER, routes.map((r) => ({ method: r.method, path: r.path, public: false, raw: false, internal: false })), reserved);
    for (const r of routes) this.embedded.set(`${r.method} ${r.path}`, r.handler);
  }

  match(method: string, path: string): RouteMatch | undefined {
    return this.routes.match(method, path);
  }

  async serve(route: RouteMatch, input: DispatchInput): Promise<RouteReply> {
    if (!this.cache.enabled) return this.dispatch(route, input);
    const tenant = input.auth.tenantId ?? '';
    if (input.method !== 'GET' && input.method !== 'HEAD') {
      // Forgotten before (a read racing the write is not kept) and after (the write's own reads).
      this.cache.forget(route.owner, tenant);
      try {
        return await this.dispatch(route, input);
      } finally {
        this.cache.forget(route.owner, tenant);
      }
    }
    if (!route.decl.cached || input.querystring === undefined) return this.dispatch(route, input);
    const key = cacheKey(route, input.auth, input.method, input.path, input.querystring);
    const kept = this.cache.get(key);
    if (kept) return kept;
    const generation = this.cache.generation(route.owner, tenant);
    const reply = await this.dispatch(route, input);
    this.cache.keep(key, route.owner, tenant, generation, reply);
    return reply;
  }

  /** The answer the cache holds for this read of a route declared cached, as serve() would give it; undefined when none is kept. */
  kept(route: RouteMatch, auth: AuthContext, method: 'GET' | 'HEAD', path: string, querystring: string): RouteReply | undefined {
    if (!this.cache.enabled || !route.decl.cached) return undefined;
    return this.cache.get(cacheKey(route, auth, method, path, querystring));
  }

  private async dispatch(route: RouteMatch, input: DispatchInput): Promise<RouteReply> {
    const message = {
      type: 'request' as const,
      method: input.method,
      path: input.path,
      route: route.key,
      params: route.params,
      query: input.query,
      body: input.attachment ? null : (input.body ?? null),
      ...(route.decl.raw ? { raw: true, ...(input.headers ? { headers: input.headers } : {}) } : {}),
      auth: { tenantId: input.auth.tenantId, role: input.auth.role, actor: input.auth.actor },
    };
    const embedded = route.owner === EMBEDDED_OWNER ? this.embedded.get(route.key) : undefined;
    // What an extension that has stored nothing would answer is said here rather than start a process to say it.
    const reply = route.decl.emptyAnswer && this.emptyAndCold(route.owner)
      ? { status: 200, body: route.decl.emptyAnswer }
      : embedded
      ? await embedded({ ...message, body: input.attachment ? decodeAttachment(input.attachment, route.decl.raw ? 'text' : 'json') : message.body, id: `k${++this.embeddedRequests}` })
      : await this.registry.request<RouteReply>(route.owner, message, { attachment: input.attachment, httpRequestId: input.httpRequestId });
    if (!isReply(reply)) throw new RoostError('UPSTREAM_ERROR', `extension ${route.owner} answered ${route.key} with a malformed reply`);
    // A streamed reply's body is the stream the kernel's host made (kernel/host/route-streams.ts).
    if (reply.stream === true) return reply.body instanceof Readable ? reply : { status: 502, body: new RoostError('UPSTREAM_ERROR', `${route.key} streams its answer, which only HTTP reads`).toBody() };
    // An embedded handler's body that is already JSON text goes out as an extension's attachment would.
    const answer: RouteReply = reply.body instanceof RawJson ? { status: reply.status, headers: reply.headers, attachment: reply.body.text, encoding: 'json' } : reply;
    if (this.checkResponses) checkResponse(route, answer);
    return answer;
  }

  /** An extension calling another extension's route, with the auth of the request it serves. */
  async call(input: Omit<DispatchInput, 'query'>): Promise<CallReply> {
    const url = new URL(input.path, 'http://internal');
    const route = this.routes.match(input.method, url.pathname);
    if (!route || (input.public && route.decl.internal)) return { status: 404, body: new RoostError('ROUTE_NOT_FOUND', `nobody serves ${input.method} ${url.pathname}`).toBody() };
    if (input.auth.role === 'viewer' && input.method !== 'GET') {
      return { status: 403, body: new RoostError('FORBIDDEN', 'viewers cannot change anything').toBody() };
    }
    try {
      const reply = await this.serve(route, { ...input, path: url.pathname, query: Object.fromEntries(url.searchParams), querystring: url.search.slice(1) });
      if (reply.stream === true) {
        (reply.body as Readable).destroy();
        return { status: 502, body: new RoostError('UPSTREAM_ERROR', `${input.method} ${url.pathname} streams its answer (server-sent events), which a call cannot read`).toBody() };
      }
      return reply.attachment ? { status: reply.status, attachment: reply.attachment, encoding: reply.encoding ?? 'json' } : { status: reply.status, body: reply.body ?? null };
    } catch (err) {
      const error = toRoostError(err);
      return { status: error.status, body: error.toBody() };
    }
  }
}

/** What a cached answer is kept under: everything the extension receives that may change it. */
function cacheKey(route: RouteMatch, auth: AuthContext, method: string, path: string, querystring: string): string {
  return ResponseCache.key(route.owner, auth.tenantId ?? '', auth.role, auth.actor, method, path, querystring);
}

function isReply(value: unknown): value is RouteReply {
  if (typeof value !== 'object' || value === null) return false;
  const status = (value as RouteReply).status;
  const headers = (value as RouteReply).headers;
  return Number.isInteger(status) && status >= 100 && status <= 599 && (headers === undefined || (typeof headers === 'object' && headers !== null));
}
