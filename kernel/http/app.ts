// The HTTP front: koa with one error shape, authentication, rate limiting, the viewer rule, a 1 MiB
// body limit, the audit trail of every mutation, the kernel's own routes, then the routes extensions
// declared, and 404 ROUTE_NOT_FOUND for everything else.
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import { RoostError, toRoostError } from '../../protocol/errors.js';
import { isLoopback, type Identity } from '../auth/identity.js';
import type { Kernel } from '../kernel.js';
import { browserGuard } from './browser-guard.js';
import { jsonBody } from './json-body.js';
import type { RouteMatch } from './route-table.js';
import { isKernelPublicRoute, kernelServes, registerKernelRoutes } from './routes/index.js';

export interface State {
  identity: Identity;
  route?: RouteMatch;
  /** Served without authentication (registration, health, public extension routes). */
  public: boolean;
}

const ANONYMOUS: Identity = { tenantId: '', role: 'viewer', actor: 'anonymous', keyHash: null, local: false };
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** POSTs that change nothing a viewer could not see anyway. */
const VIEWER_POSTS = new Set(['/api/ws/ticket']);

export interface HttpFront {
  koa: Koa<State>;
  /** True when the kernel itself serves this method and path (so no extension may claim it). */
  kernelServes(method: string, path: string): boolean;
}

export function createApp(kernel: Kernel): HttpFront {
  const app = new Koa<State>({ proxy: false });
  const router = new Router<State>();
  registerKernelRoutes(router, kernel);

  app.use(errors(kernel));
  app.use(browserGuard(kernel));
  app.use(authenticate(kernel));
  app.use(auditMutations(kernel));
  app.use(viewersOnlyRead());
  app.use(bodyGuard(kernel));
  app.use(
    // JSON is read as text and parsed by jsonBody(), which checks the JSON limits before JSON.parse.
    bodyParser({
      enableTypes: ['text'],
      extendTypes: { text: ['application/json', '+json'] },
      parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
      textLimit: kernel.config.bodyLimitBytes,
      encoding: 'utf-8',
      onError: (err) => {
        const status = (err as { status?: number }).status;
        if (status === 413) throw new RoostError('PAYLOAD_TOO_LARGE', `the body is larger than ${kernel.config.bodyLimitBytes} bytes`);
        throw new RoostError('VALIDATION_ERROR', 'the body is not valid JSON');
      },
    }),
  );
  app.use(jsonBody());
  app.use(router.routes());
  app.use(serveExtensionRoute(kernel));
  app.use((ctx) => {
    throw new RoostError('ROUTE_NOT_FOUND', `nothing serves ${ctx.method} ${ctx.path}`);
  });
  return { koa: app, kernelServes: (method, path) => kernelServes(router, method, path) };
}

function errors(kernel: Kernel): Koa.Middleware<State> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const error = toRoostError(err);
      if (error.code === 'INTERNAL') kernel.log('error', `${ctx.method} ${ctx.path}: ${err instanceof Error ? err.stack : String(err)}`);
      ctx.status = error.status;
      ctx.body = error.toBody();
      if (error.status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="roost"');
      if (error.code === 'RATE_LIMITED') ctx.set('Retry-After', String((error.details as { retryAfter: number }).retryAfter));
      if (error.code === 'AUTH_REQUIRED' || error.code === 'INVALID_API_KEY') {
        kernel.audit.append({ tenantId: null, actor: ctx.ip || 'unknown', action: 'auth.failure', resource: `${ctx.method} ${ctx.path}`, detail: { code: error.code } });
      } else if (error.code === 'FORBIDDEN' && !MUTATING.has(ctx.method)) {
        // Refused mutations are in the trail already (auditMutations); refused reads are recorded here.
        const { identity } = ctx.state;
        kernel.audit.append({ tenantId: identity?.tenantId || null, actor: identity?.actor ?? (ctx.ip || 'unknown'), action: 'auth.forbidden', resource: `${ctx.method} ${ctx.path}`, detail: { code: error.code } });
      }
      if (error.code === 'RATE_LIMITED' || error.code === 'PAYLOAD_TOO_LARGE') ctx.set('Connection', 'close');
    }
  };
}

function authenticate(kernel: Kernel): Koa.Middleware<State> {
  return async (ctx, next) => {
    const found = kernel.dispatcher.match(ctx.method, ctx.path);
    const route = found?.decl.internal ? undefined : found;
    if (route) ctx.state.route = route;
    const isPublic = route ? route.decl.public : isKernelPublicRoute(ctx.method, ctx.path);
    ctx.state.public = isPublic;
    let identity: Identity;
    try {
      identity = isPublic && !ctx.get('authorization')
        ? { ...ANONYMOUS, local: isLoopback(ctx.req.socket.remoteAddress) }
        : await kernel.auth.identify(ctx.req);
    } catch (err) {
      // A refused key still costs its address a token, so keys cannot be guessed at full speed.
      kernel.rateLimiter.take(`ip:${ctx.ip}`);
      throw err;
    }
    ctx.state.identity = identity;
    // A loopback caller without a key is the machine's owner and is not limited, unless local auth is required.
    const exempt = identity.keyHash === null && identity.local && !kernel.config.localAuthRequired;
    if (!exempt) kernel.rateLimiter.take(identity.keyHash ?? `ip:${ctx.ip}`);
    await next();
  };
}

/** Runs inside auditMutations, so a viewer's refused change is in the audit trail. */
function viewersOnlyRead(): Koa.Middleware<State> {
  return async (ctx, next) => {
    const { identity } = ctx.state;
    if (!ctx.state.public && identity.role === 'viewer' && MUTATING.has(ctx.method) && !VIEWER_POSTS.has(ctx.path)) {
      throw new RoostError('FORBIDDEN', 'viewers cannot change anything');
    }
    await next();
  };
}

/** The size limit holds whatever the content type; a body that is not JSON is refused unless the route takes it raw. */
function bodyGuard(kernel: Kernel): Koa.Middleware<State> {
  return async (ctx, next) => {
    const length = ctx.request.length ?? 0;
    if (length > kernel.config.bodyLimitBytes) throw new RoostError('PAYLOAD_TOO_LARGE', `the body is larger than ${kernel.config.bodyLimitBytes} bytes`);
    const hasBody = length > 0 || ctx.get('transfer-encoding') !== '';
    if (MUTATING.has(ctx.method) && hasBody && !ctx.state.route?.decl.raw && !ctx.request.is('json', '+json')) {
      throw new RoostError('VALIDATION_ERROR', `the body must be JSON (Content-Type: application/json), not ${ctx.get('content-type') || 'untyped'}`);
    }
    await next();
  };
}

function auditMutations(kernel: Kernel): Koa.Middleware<State> {
  return async (ctx, next) => {
    if (!MUTATING.has(ctx.method)) return next();
    let status = 0;
    try {
      await next();
      status = ctx.status;
    } catch (err) {
      status = toRoostError(err).status;
      throw err;
    } finally {
      const { identity, route } = ctx.state;
      const kernelRoute = (ctx as { _matchedRoute?: string })._matchedRoute;
      kernel.audit.append({
        tenantId: identity?.tenantId || null,
        actor: identity?.actor ?? 'anonymous',
        action: route?.key ?? (kernelRoute ? `${ctx.method} ${kernelRoute}` : `${ctx.method} ${ctx.path}`),
        resource: ctx.path,
        detail: { status, ...(route ? { extension: route.owner } : {}) },
      });
    }
  };
}

function serveExtensionRoute(kernel: Kernel): Koa.Middleware<State> {
  return async (ctx, next) => {
    const route = ctx.state.route;
    if (!route) return next();
    const request = ctx.request as typeof ctx.request & { body?: unknown; rawBody?: string };
    const reply = await kernel.dispatcher.serve(route, {
      method: ctx.method,
      path: ctx.path,
      query: ctx.query as Record<string, string | string[]>,
      // No body at all reaches the extension as null, not as the parser's empty object.
      body: route.decl.raw ? (request.rawBody ?? '') : request.rawBody === undefined ? null : request.body,
      auth: ctx.state.identity,
    });
    ctx.status = reply.status;
    for (const [name, value] of Object.entries(reply.headers ?? {})) ctx.set(name, value);
    ctx.body = reply.status === 204 ? null : (reply.body ?? null);
  };
}
