// The HTTP front: koa with one error shape, authentication, rate limiting, the viewer rule, a 1 MiB
// body limit, the audit trail of every mutation, the routes extensions declared, then the kernel's own
// routes, and 404 ROUTE_NOT_FOUND for everything else. A request is matched once: the route table
// (authenticate) finds extension routes, and only what it does not serve reaches the kernel's router
// and its JSON body reader; an extension route's body and reply pass through as bytes, never parsed here.
import type { RequestListener } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import compose from 'koa-compose';
import { RoostError } from '../../protocol/errors.js';
import { checkJsonLimits, EDGE_JSON_LIMITS } from '../../protocol/json-limits.js';
import type { Identity } from '../auth/identity.js';
import { rateBucket } from '../auth/rate-limit.js';
import type { Kernel } from '../kernel.js';
import { AccessLog, accessLogWriter } from './access-log.js';
import { auditMutations } from './audit-mutations.js';
import { hasBody, readRawBody } from './raw-body.js';
import { browserGuard } from './browser-guard.js';
import { idempotentRequests } from './idempotency.js';
import { jsonBody } from './json-body.js';
import { kernelRouteDispatch } from './kernel-route-dispatch.js';
import { isMachine, machineIdentity } from './machine-key.js';
import { envelope } from './envelope.js';
import { fastFront } from './fast-front.js';
import { routeNamed, type RouteOf } from './measure-requests.js';
import type { RouteMatch } from './route-table.js';
import { healthAnswers } from './routes/health.js';
import { isKernelPublicRoute, kernelMethodsFor, kernelServes, registerKernelRoutes } from './routes/index.js';
import { isMutating } from './methods.js';

export interface State {
  /** The X-Request-Id of the response; log records made for the request carry it. */
  requestId: string;
  identity: Identity;
  route?: RouteMatch;
  /** Served without authentication (registration, health, public extension routes). */
  public: boolean;
}

const ANONYMOUS: Identity = { tenantId: '', role: 'viewer', actor: 'anonymous', keyHash: null, local: false };
/** POSTs that change nothing a viewer could not see anyway. */
const VIEWER_POSTS = new Set(['/api/ws/ticket']);

export interface HttpFront {
  koa: Koa<State>;
  /** Puts the fast front (fast-front.ts: health probes, cached reads) before `front`, the handler koa's middleware makes. */
  withFastFront(front: RequestListener): RequestListener;
  /** True when the kernel itself serves this method and path (so no extension may claim it). */
  kernelServes(method: string, path: string): boolean;
}

export function createApp(kernel: Kernel): HttpFront {
  const app = new Koa<State>({ proxy: false });
  const router = new Router<State>();
  const health = healthAnswers(kernel);
  registerKernelRoutes(router, kernel, health);

  // The route template a request matched and its owner, for the metrics' labels and the span's name.
  const routeOf: RouteOf = (method, path) => {
    const extension = kernel.dispatcher.match(method, path);
    if (extension && !extension.decl.internal) return { pattern: extension.decl.path, owner: extension.owner };
    const layer = router.match(path, method).pathAndMethod.find((l) => l.methods.length > 0);
    return layer ? { pattern: String(layer.path), owner: 'kernel' } : undefined;
  };
  if (kernel.tracing) app.use(kernel.tracing.httpSpans((ctx) => routeNamed(ctx, routeOf)));
  const target = kernel.config.accessLog;
  const access = target.to === 'off' ? undefined : new AccessLog(kernel.config.logFormat, accessLogWriter(target, kernel.log));
  app.use(envelope(kernel, access, routeOf));
  app.use(browserGuard(kernel));
  app.use(authenticate(kernel));
  // What only a mutation has to pass, composed once: a read skips the five steps for the size check alone.
  const mutation = compose([auditMutations(kernel), viewersOnlyRead(), readOnlyTenants(kernel), bodyGuard(kernel), idempotentRequests(kernel)]);
  app.use((ctx, next) => {
    if (isMutating(ctx.request.method)) return mutation(ctx, next);
    checkBodySize(kernel, ctx.request.length);
    return next();
  });
  app.use(serveExtensionRoute(kernel));
  app.use(jsonBody(kernel.config.bodyLimitBytes));
  app.use(kernelRouteDispatch(router));
  app.use((ctx) => {
    // A path served under other methods: 405 with Allow (OPTIONS: just the Allow).
    const allowed = [...new Set([...kernel.routes.methodsFor(ctx.path), ...kernelMethodsFor(router, ctx.path)])];
    if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD');
    if (allowed.length === 0) throw new RoostError('ROUTE_NOT_FOUND', `nothing serves ${ctx.method} ${ctx.path}`);
    ctx.set('Allow', allowed.sort().join(', '));
    if (ctx.method === 'OPTIONS') return void (ctx.status = 204);
    throw new RoostError('METHOD_NOT_ALLOWED', `${ctx.path} does not take ${ctx.method}; it takes ${allowed.sort().join(', ')}`);
  });
  return {
    koa: app,
    withFastFront: (front) => fastFront(kernel, health, access, front),
    kernelServes: (method, path) => kernelServes(router, method, path),
  };
}

function authenticate(kernel: Kernel): Koa.Middleware<State> {
  return async (ctx, next) => {
    // koa's request and response rather than the context's delegates, on the path every request takes.
    const { method, path, ip } = ctx.request;
    const found = kernel.dispatcher.match(method, path);
    const route = found?.decl.internal ? undefined : found;
    if (route) ctx.state.route = route;
    // Well-known URIs (RFC 8615) are discovery: one nothing serves is a plain 404 for anyone, never a 401
    // that would send a client (an MCP client probing for OAuth metadata) into a sign-in it cannot finish.
    const isPublic = route ? route.decl.public : isKernelPublicRoute(method, path) || path.startsWith('/.well-known/');
    ctx.state.public = isPublic;
    let identity: Identity;
    try {
      identity = machineIdentity(kernel.routes, route, path, ctx.req) ?? (isPublic && !ctx.req.headers.authorization
        ? { ...ANONYMOUS, local: kernel.auth.clients.isLocal(ctx.req) }
        : await kernel.auth.identify(ctx.req));
    } catch (err) {
      // A refused key still costs its address a token, so keys cannot be guessed at full speed.
      await kernel.rateLimiter.take(`ip:${ip}`);
      throw err;
    }
    ctx.state.identity = identity;
    const bucket = rateBucket(identity, kernel.config.localAuthRequired, ip);
    if (bucket) await kernel.rateLimiter.take(bucket);
    await next();
  };
}

/** Runs inside auditMutations, so a viewer's refused change is in the audit trail. A machine key's method that nothing serves goes on to its 405. */
function viewersOnlyRead(): Koa.Middleware<State> {
  return async (ctx, next) => {
    const { identity } = ctx.state;
    if (!ctx.state.public && identity.role === 'viewer' && isMutating(ctx.method) && !VIEWER_POSTS.has(ctx.path) && !(isMachine(identity) && !ctx.state.route)) {
      throw new RoostError('FORBIDDEN', 'viewers cannot change anything');
    }
    await next();
  };
}

/** A tenant that reads only changes nothing, except through the routes declared writable_when_read_only (its way out). */
function readOnlyTenants(kernel: Kernel): Koa.Middleware<State> {
  return async (ctx, next) => {
    const { identity, route } = ctx.state;
    if (isMutating(ctx.method) && !ctx.state.public && identity.tenantId && !route?.decl.writableWhenReadOnly) await kernel.readOnly.requireWritable(identity.tenantId);
    await next();
  };
}

/** The size limit holds whatever the content type; a body that is not JSON is refused unless the route takes it raw. */
function bodyGuard(kernel: Kernel): Koa.Middleware<State> {
  return async (ctx, next) => {
    const length = ctx.request.length ?? 0;
    checkBodySize(kernel, length);
    const hasBody = length > 0 || ctx.get('transfer-encoding') !== '';
    if (isMutating(ctx.method) && hasBody && !ctx.state.route?.decl.raw && !ctx.request.is('json', '+json')) {
      throw new RoostError('VALIDATION_ERROR', `the body must be JSON (Content-Type: application/json), not ${ctx.get('content-type') || 'untyped'}`);
    }
    await next();
  };
}

function checkBodySize(kernel: Kernel, length: number | undefined): void {
  if ((length ?? 0) > kernel.config.bodyLimitBytes) throw new RoostError('PAYLOAD_TOO_LARGE', `the body is larger than ${kernel.config.bodyLimitBytes} bytes`);
}

function serveExtensionRoute(kernel: Kernel): Koa.Middleware<State> {
  return async (ctx, next) => {
    const route = ctx.state.route;
    if (!route) return next();
    const { request, response } = ctx;
    const attachment = hasBody(ctx.req) ? await readRawBody(ctx.req, kernel.config.bodyLimitBytes) : undefined;
    // Not parsed here, but held to the JSON limits, so nothing that later walks it can overflow the stack.
    if (attachment && !route.decl.raw) checkJsonLimits(attachment.toString('utf8'), EDGE_JSON_LIMITS);
    const reply = await kernel.dispatcher.serve(route, {
      method: request.method,
      path: request.path,
      query: request.query as Record<string, string | string[]>,
      querystring: request.querystring,
      // No body at all reaches the extension as null (a raw route gets the empty string).
      body: route.decl.raw ? '' : null,
      ...(attachment ? { attachment } : {}),
      ...(route.decl.raw ? { headers: signatureHeaders(ctx.req.headers) } : {}),
      auth: ctx.state.identity,
      httpRequestId: ctx.state.requestId,
    });
    response.status = reply.status;
    if (reply.headers) for (const [name, value] of Object.entries(reply.headers)) response.set(name, value);
    if (reply.status === 204) return void (response.body = null);
    // A streamed reply (server-sent events): Koa pipes it and destroys it when the client goes.
    if (reply.stream === true) return void (response.body = reply.body);
    if (!reply.attachment) return void (response.body = reply.body ?? null);
    if (reply.attachment.length === 0) return void (response.body = null);
    // Set as the header itself: Koa's `type` would look a full media type up in mime-types again.
    if (reply.encoding === 'text') {
      if (!reply.headers || !Object.keys(reply.headers).some((h) => h.toLowerCase() === 'content-type')) response.set('Content-Type', 'text/plain; charset=utf-8');
    } else response.set('Content-Type', 'application/json; charset=utf-8');
    response.body = reply.attachment;
  };
}

/** What a raw route sees of the request's headers: all but credentials (a signature check needs its own). */
function signatureHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'authorization' || name === 'cookie' || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
