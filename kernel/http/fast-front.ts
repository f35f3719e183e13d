// Requests answered before koa. Two kinds come over and over: the health probes, which load balancers,
// orchestrators and monitors ask, and reads the response cache holds (dispatch.ts), which a dashboard,
// a script or an agent repeats. Their answers read only what the kernel keeps, and the whole front (its
// context objects, the error shape, the body checks) would cost about half of such a request;
// corvid-agent, too, answers its health routes before its middleware. They still get what every
// request gets: the browser guard's Host check, an X-Request-Id, Vary: Origin, an access log record and
// metrics under their route; a read is authenticated and rate limited as the whole front would.
//
// Anything else goes through the whole front, which serves these paths too: a body, an Origin (a
// browser: the guard's CORS answer), tracing (a span per request), a probe with credentials, a query, a
// caller the rate limiter counts or an answer that failed, a read the cache does not hold (the front
// dispatches it and keeps the answer), a kept answer that carries headers of its own or is not JSON,
// and every refusal (a key that is not valid, a caller over its rate: the front says why, as always).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Identity } from '../auth/identity.js';
import { rateBucket } from '../auth/rate-limit.js';
import type { Kernel } from '../kernel.js';
import type { AccessLog } from './access-log.js';
import { browserPolicy, hostAllowed } from './browser-guard.js';
import { requestIdFor } from './request-id.js';
import type { RouteMatch } from './route-table.js';
import type { HealthRoutes } from './routes/health.js';

/** What this module uses of the kernel. */
export type FastFrontDeps = Pick<Kernel, 'auth' | 'config' | 'dispatcher' | 'metrics' | 'rateLimiter' | 'tracing'>;

interface Answer {
  status: number;
  body: string | Buffer;
  retryAfter?: number;
}

/** A GET of a route declared cached, as the whole front would see it. */
interface CachedRead {
  route: RouteMatch;
  path: string;
  querystring: string;
}

/** `front`: the whole front, for every request not answered here. */
export function fastFront(k: FastFrontDeps, health: HealthRoutes, access: AccessLog | undefined, front: RequestListener): RequestListener {
  if (k.tracing) return front;
  const policy = browserPolicy(k.config);
  // With the cache off (PostgreSQL, ROOST_RESPONSE_CACHE=off) nothing is kept: no read is looked up here.
  const readsKept = k.dispatcher.cache.enabled;
  /** No body, no Origin, a Host of this server's. */
  const bare = (req: IncomingMessage): boolean => {
    const { headers } = req;
    return headers.origin === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0')
      && headers['transfer-encoding'] === undefined && hostAllowed(policy, headers.host);
  };

  const cachedRead = (url: string): CachedRead | undefined => {
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const route = k.dispatcher.match('GET', path);
    // A route a machine key may read is left to the front, which knows that key.
    if (!route || !route.decl.cached || route.decl.internal || route.decl.public || route.decl.machineKey) return undefined;
    return { route, path, querystring: query < 0 ? '' : url.slice(query + 1) };
  };

  /** The cache's answer, as the whole front would send it (serveExtensionRoute in app.ts). */
  const kept = ({ route, path, querystring }: CachedRead, identity: Identity): Answer | undefined => {
    const reply = k.dispatcher.kept(route, identity, 'GET', path, querystring);
    const body = reply?.attachment;
    if (!reply || reply.status !== 200 || reply.headers !== undefined || reply.encoding === 'text' || !body || body.length === 0) return undefined;
    return { status: 200, body };
  };

  /** A caller with a key: identified and rate limited as the front does, and sent to it for any refusal. */
  const keyedRead = async (req: IncomingMessage, res: ServerResponse, read: CachedRead, started: number): Promise<void> => {
    let identity: Identity;
    try {
      identity = await k.auth.identify(req);
    } catch {
      return front(req, res);
    }
    const answer = kept(read, identity);
    if (!answer) return front(req, res);
    try {
      // As the front's authentication takes it; a refused take changes nothing, and the front's own is refused the same way and says so.
      const bucket = rateBucket(identity, k.config.localAuthRequired, k.auth.clients.of(req));
      if (bucket) await k.rateLimiter.take(bucket);
    } catch {
      return front(req, res);
    }
    send(req, res, answer, started, read.route.decl.path, read.route.owner, read.path, identity.tenantId || '-');
  };

  return (req, res) => {
    const { method } = req;
    if (method !== 'GET' && method !== 'HEAD') return front(req, res);
    const url = req.url ?? '';
    const probe = health.get(url);
    if (probe) {
      if (!bare(req) || !k.auth.localOwnerOf(req)) return front(req, res);
      const started = performance.now();
      probe()
        .then((answered) => send(req, res, answered, started, url, 'kernel', url, '-'), () => front(req, res))
        .catch(() => res.destroy()); // the connection went while the answer was written
      return;
    }
    const read = readsKept && method === 'GET' && bare(req) ? cachedRead(url) : undefined;
    if (!read) return front(req, res);
    const started = performance.now();
    // The machine's owner is not rate limited; any other caller without a key is refused by the front.
    const owner = k.auth.localOwnerOf(req);
    if (!owner) {
      if (req.headers.authorization === undefined) return front(req, res);
      keyedRead(req, res, read, started).catch(() => res.destroy());
      return;
    }
    const answer = kept(read, owner);
    if (!answer) return front(req, res);
    send(req, res, answer, started, read.route.decl.path, read.route.owner, read.path, owner.tenantId);
  };

  /** `route` and `owner`: what the metrics count it under; `path` and `tenant`: what the access log records. */
  function send(req: IncomingMessage, res: ServerResponse, { status, body, retryAfter }: Answer, started: number, route: string, owner: string, path: string, tenant: string): void {
    const method = req.method!;
    const given = req.headers['x-request-id'];
    const requestId = requestIdFor(typeof given === 'string' ? given : undefined);
    // One flat list of headers: no header object to build and check name by name.
    const headers = ['Vary', 'Origin', 'X-Request-Id', requestId, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(body))];
    if (retryAfter !== undefined) headers.push('Retry-After', String(retryAfter));
    res.writeHead(status, headers);
    res.end(method === 'HEAD' ? undefined : body);
    k.metrics.observe(method, route, owner, status, (performance.now() - started) / 1000);
    access?.record({ method, path, status, started, tenant, requestId, client: k.auth.clients.of(req) });
  }
}
